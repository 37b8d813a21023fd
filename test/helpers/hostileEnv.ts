/**
 * The host the hostile-server attacks run against: the extension's core (one TaskLedger, one
 * TaskTracker, an McpConnection per server) connected to a hostile server (the attack's
 * transport) AND to a well-behaved server (`requestorServer`, stdio) that has a task in flight on
 * each side (a tool task it runs for us, a received task we run for it). Shared by
 * `test/integration/hostile.test.ts` and `npm run hostile`.
 */
import type { ChildProcess } from 'node:child_process';
import { hostSides } from '../../src/core/requestor/hostSides.js';
import { receiverOf } from '../../src/core/receiver/wire/receiverSide.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type CallToolResult, type CreateMessageResult, type ElicitResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpConnection, type ConnectionState, type RestartPolicy, type ServerLog } from '../../src/core/connection/connection.js';
import type { HostResponders, ResponderContext } from '../../src/core/receiver/wire/responders.js';
import { Emitter, type Event } from '../../src/core/base/event.js';
import { statesOf } from '../../src/core/connection/registry.js';
import { TaskLedger, type AuditRecord, type LedgerLimits } from '../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot } from '../../src/core/requestor/tracker.js';
import { ROOT, ScriptedResponders, fixture, httpDefinition, stdioDefinition, startHttpFixture, textOf, waitFor } from './host.js';

export type TransportKind = 'stdio' | 'http';
export const WAIT_MS = 20_000;

/** A log that keeps only its last lines, but counts them all and remembers the longest. */
export class BoundedLog implements ServerLog {
  readonly lines: string[] = [];
  count = 0;
  longest = 0;
  private readonly _onLine = new Emitter<string>();
  readonly onLine = this._onLine.event;
  traceEnabled = process.env.HOSTILE_TRACE !== "0";
  constructor(private readonly _keep = 400) {}
  /** Lines that report a protocol error (the flood's measure). */
  protocolErrors = 0;
  private _add(level: string, m: string) {
    this.count++;
    if (m.startsWith('protocol error')) this.protocolErrors++;
    this.longest = Math.max(this.longest, m.length);
    // A copy, not a slice: a V8 sliced string would keep a 50 MB parent alive.
    this.lines.push(`${level} ${m.length > 2000 ? `${Buffer.from(m.slice(0, 2000)).toString()}…` : m}`);
    if (this.lines.length > this._keep) this.lines.shift();
    this._onLine.fire(m);
  }
  trace(m: string) { this._add('trace', m); }
  debug(m: string) { this._add('debug', m); }
  info(m: string) { this._add('info', m); }
  warn(m: string) { this._add('warn', m); }
  error(m: string) { this._add('error', m); }
  dispose(): void {
    this._onLine.dispose();
  }
}

/** Responders that hold every request until released (or aborted). */
export class HoldingResponders implements HostResponders {
  private readonly _held = new Set<() => void>();
  readonly calls: ResponderContext[] = [];
  private _hold<T>(ctx: ResponderContext, answer: () => T): Promise<T> {
    this.calls.push(ctx);
    return new Promise<T>((resolve, reject) => {
      const release = () => {
        this._held.delete(release);
        resolve(answer());
      };
      this._held.add(release);
      ctx.signal.addEventListener('abort', () => {
        this._held.delete(release);
        reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('aborted'));
      }, { once: true });
    });
  }
  sampling(_p: unknown, ctx: ResponderContext): Promise<CreateMessageResult> {
    return this._hold(ctx, () => ({ model: 'held-model', role: 'assistant', content: { type: 'text', text: 'released' } }));
  }
  elicitation(_p: unknown, ctx: ResponderContext): Promise<ElicitResult> {
    return this._hold(ctx, () => ({ action: 'decline' }));
  }
  releaseAll(): void {
    for (const r of [...this._held]) r();
  }
}

export interface EnvOptions {
  /** Flags for the hostile server (`--cancel-invalid`, `--drop-result`, `--endless-list N`). */
  readonly flags?: string[];
  readonly limits?: Partial<LedgerLimits>;
  readonly restart?: Partial<RestartPolicy>;
  /** The hostile server's fixture (test/fixtures/<name>.ts); `hostileServer` (2025-11-25) unless named. */
  readonly server?: string;
}

/** Starts an HTTP hostile server process; resolves with its URL. */
function startHttpHostile(flags: string[], server = 'hostileServer'): Promise<{ url: string; child: ChildProcess }> {
  return startHttpFixture(fixture(server), flags, 'hostile HTTP server', WAIT_MS);
}

let gcFn: (() => void) | undefined;
/** `global.gc`, enabled at run time (tests do not run with --expose-gc). */
export function gc(): void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn();
}

/** One host with a good and a hostile server. */
export class HostileEnv {
  readonly ledger: TaskLedger;
  readonly tracker: TaskTracker;
  readonly goodLog = new BoundedLog();
  readonly hostileLog = new BoundedLog();
  readonly good: McpConnection;
  readonly hostile: McpConnection;
  /** The received tasks of each server (its connection's receiver side). */
  get goodTasks() {
    return receiverOf(this.good)!.tasks;
  }
  get hostileTasks() {
    return receiverOf(this.hostile)!.tasks;
  }
  readonly hostileResponders = new HoldingResponders();
  readonly audit: AuditRecord[] = [];
  readonly failures: string[] = [];
  readonly warnings: string[] = [];
  /** Every notification the hostile server sent that reached the connection's listeners. */
  readonly hostileNotifications = new Emitter<JSONRPCMessage>();
  goodTaskKey = '';
  /** The good server's id of that task (the key is not made of it: requestor/sentTask.ts). */
  get goodTaskId(): string {
    return this.tracker.get(this.goodTaskKey)!.task!.taskId;
  }
  goodReceivedTaskId = '';
  private _releaseGoodReceived?: () => void;
  private readonly _subs: Array<{ dispose(): void }> = [];
  private readonly _onUncaught = (e: unknown) => this.failures.push(`uncaught: ${String((e as Error)?.stack ?? e)}`);
  private readonly _onWarning = (w: Error) => this.warnings.push(`${w.name}: ${w.message}`);

  private constructor(
    readonly transport: TransportKind,
    hostileUrl: string | undefined,
    private readonly _child: ChildProcess | undefined,
    options: EnvOptions,
  ) {
    this.ledger = new TaskLedger({ limits: { pollIntervalMs: 30, ...options.limits } });
    this._subs.push(this.ledger.onAudit((a) => this.audit.length < 10_000 && this.audit.push(a)));
    const goodDef = stdioDefinition('good', process.execPath, [fixture('requestorServer')]);
    const hostileDef =
      transport === 'stdio' ? stdioDefinition('hostile', process.execPath, [fixture(options.server ?? 'hostileServer'), ...(options.flags ?? [])]) : httpDefinition('hostile', hostileUrl!);
    const variables = { env: process.env, workspaceFolder: ROOT };
    this.good = new McpConnection(goodDef, { sides: hostSides(this.ledger, new ScriptedResponders()), log: this.goodLog, variables });
    this.hostile = new McpConnection(hostileDef, {
      sides: hostSides(this.ledger, this.hostileResponders),
      log: this.hostileLog,
      variables,
      restart: { baseDelayMs: 50, maxCrashes: 3, ...options.restart },
    });
    this.tracker = new TaskTracker({
      connectionFor: (id) => (id === 'good' ? this.good : id === 'hostile' ? this.hostile : undefined),
      minPollIntervalMs: 10,
      defaultPollIntervalMs: 50,
    });
    // Followed as the extension's tracker follows its registry.
    const states = statesOf([this.good, this.hostile]);
    this._subs.push(this.tracker.followServers(states), states);
    this._subs.push(this.hostile.onDidReceiveNotification((n) => this.hostileNotifications.fire(n)));
    process.on('uncaughtException', this._onUncaught);
    process.on('unhandledRejection', this._onUncaught);
    process.on('warning', this._onWarning);
  }

  static async start(transport: TransportKind, options: EnvOptions = {}): Promise<HostileEnv> {
    const http = transport === 'http' ? await startHttpHostile(options.flags ?? [], options.server) : undefined;
    const env = new HostileEnv(transport, http?.url, http?.child, options);
    await Promise.all([env.good.start(), env.hostile.start()]);
    await env._startGoodTasks();
    return env;
  }

  /** A tool task on the good server (released later) and a received task we run for it. */
  private async _startGoodTasks(): Promise<void> {
    const { tools } = await this.good.client.listTools();
    const work = tools.find((t) => t.name === 'work')!;
    this.goodTaskKey = await this.tracker.callTool(this.good, work, { untilReleased: true, pollInterval: 50 });
    const scope = this.goodTasks;
    const task = await scope.createTask({ ttl: 300_000 }, 'good-1', { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
    this.goodReceivedTaskId = task.taskId;
    const released = new Promise<void>((r) => (this._releaseGoodReceived = r));
    scope.run(task.taskId, async () => {
      await released;
      return { model: 'good-model', role: 'assistant', content: { type: 'text', text: 'good answer' } };
    });
  }

  /** Calls a tool on the hostile server plainly; resolves with its text. */
  async attack(name: string, args: Record<string, unknown> = {}, timeout = 60_000): Promise<string> {
    const r = (await this.hostile.client.callTool({ name: 'attack', arguments: { name, args } }, { timeout })) as CallToolResult;
    if (r.isError) throw new Error(`attack ${name} failed: ${textOf(r)}`);
    return textOf(r);
  }

  async hostileStats(): Promise<{ gets: number; cancels: number; results: number; lists: number; droppedResults: number }> {
    return JSON.parse(textOf(await this.hostile.client.callTool({ name: 'stats', arguments: {} })));
  }

  /**
   * Resolves when the hostile server sends `hostile/done`, its connection leaves `running`, or
   * (with `logPattern`) the host logs a line about it that matches.
   */
  attackDoneOrDisconnected(logPattern?: RegExp): Promise<'done' | 'disconnected' | 'logged'> {
    return new Promise((resolve) => {
      const subs = [
        this.hostileNotifications.event((n) => {
          if ('method' in n && n.method === 'hostile/done') finish('done');
        }),
        this.hostileLog.onLine((l) => {
          if (logPattern?.test(l)) finish('logged');
        }),
        this.hostile.onDidChangeState((s) => {
          if (s.kind !== 'running') finish('disconnected');
        }),
      ];
      const finish = (how: 'done' | 'disconnected' | 'logged') => {
        for (const s of subs) s.dispose();
        resolve(how);
      };
      if (this.hostile.state.kind !== 'running') finish('disconnected');
    });
  }

  /** Waits for the sent task `key` to satisfy `check`. */
  async untilSent(key: string, check: (s: SentTaskSnapshot) => boolean, what: string, ms = WAIT_MS): Promise<SentTaskSnapshot> {
    await waitFor(this.tracker.onDidChange, () => !!this.tracker.get(key) && check(this.tracker.get(key)!), `${what} (now ${JSON.stringify(this.tracker.get(key)?.phase)}: ${this.tracker.get(key)?.reason ?? ''})`, ms);
    return this.tracker.get(key)!;
  }

  untilHostileState(check: (s: ConnectionState) => boolean, what: string, ms = WAIT_MS): Promise<void> {
    return waitFor(this.hostile.onDidChangeState as Event<unknown>, () => check(this.hostile.state), `${what} (now ${JSON.stringify(this.hostile.state)})`, ms);
  }

  /** Releases the good server's two tasks and waits for both to complete. */
  async finishGoodTasks(): Promise<{ sent: SentTaskSnapshot; receivedStatus: string | undefined }> {
    const taskId = this.goodTaskId;
    await this.good.client.callTool({ name: 'release', arguments: { taskId } });
    const sent = await this.untilSent(this.goodTaskKey, (s) => s.phase !== 'tracking' && s.phase !== 'sending', 'the good tool task to finish');
    this._releaseGoodReceived?.();
    await waitFor(this.ledger.onDidChange, () => this.goodTasks.get(this.goodReceivedTaskId)?.task.status !== 'working', 'the good received task to finish');
    return { sent, receivedStatus: this.goodTasks.get(this.goodReceivedTaskId)?.task.status };
  }

  /** Pings the good server every few ms until stopped; the largest round trip and any failure. */
  pingLoop(): { stop(): Promise<{ pings: number; maxMs: number; failures: string[]; maxLoopDelayMs: number }> } {
    let running = true;
    let pings = 0;
    let maxMs = 0;
    const failures: string[] = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const loop = (async () => {
      while (running) {
        const t = performance.now();
        try {
          await this.good.client.ping({ timeout: WAIT_MS });
          pings++;
          maxMs = Math.max(maxMs, performance.now() - t);
        } catch (e) {
          failures.push(String((e as Error).message));
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        loopDelay.disable();
        return { pings, maxMs, failures, maxLoopDelayMs: loopDelay.max / 1e6 };
      },
    };
  }

  dispose(): void {
    process.off('uncaughtException', this._onUncaught);
    process.off('unhandledRejection', this._onUncaught);
    process.off('warning', this._onWarning);
    for (const s of this._subs) s.dispose();
    this.hostileNotifications.dispose();
    this.tracker.dispose();
    this.good.dispose();
    this.hostile.dispose();
    this.ledger.dispose();
    this.goodLog.dispose();
    this.hostileLog.dispose();
    this._child?.kill('SIGKILL');
  }
}
