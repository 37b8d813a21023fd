/**
 * What the fault soak (bench/soak.ts) drives: the real servers (the requestor fixture over stdio,
 * started by the host, and over Streamable HTTP, a process of the soak's own behind the outage
 * proxy), the faults done to them (kill -9, a restart on the same port, an outage), and the
 * extension's core as a window holds it (ledger, registry, tracker), built from storage that
 * outlives it so a "reload" disposes it and builds it again, as VS Code does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/client';
import { assignUniqueIds, parseMcpConfig, type ServerDefinition } from '../src/core/config/config.js';
import { LastGoodConfig } from '../src/core/config/lastGood.js';
import type { SavedSession, SessionStore } from '../src/core/connection/httpSession.js';
import { ServerRegistry } from '../src/core/connection/registry.js';
import type { ProcessRecorder } from '../src/core/connection/stdioTransport.js';
import { TaskLedger } from '../src/core/receiver/ledger.js';
import type { HostResponders, ResponderContext } from '../src/core/receiver/wire/responders.js';
import { hostSides } from '../src/core/requestor/hostSides.js';
import { TaskTracker, type TrackerStorage } from '../src/core/requestor/tracker.js';
import { startOutageProxy, type OutageProxy } from '../scripts/lib/outageProxy.mjs';
import { freePort } from '../test/helpers/freePort.js';
import { BoundedLog } from '../test/helpers/hostileEnv.js';
import { ROOT, fixture } from '../test/helpers/host.js';

export const SERVER = fixture('requestorServer');

/** A seeded random source (mulberry32): the same seed, the same schedule of faults and calls. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The servers and the faults done to them. `epoch` names the process that holds a server's tasks now. */
export class SoakServers {
  private _http?: ChildProcess;
  private _httpEpoch = 0;
  private _httpUp = false;
  /** The stdio server's process the host started last (none while it is down). */
  private _localPid?: number;
  readonly recorder: ProcessRecorder = {
    started: (pid, _command, args) => {
      if (args.some((a) => a.endsWith('requestorServer.js')) && !args.includes('--no-tasks')) this._localPid = pid;
    },
    ended: (pid) => {
      if (this._localPid === pid) this._localPid = undefined;
    },
  };

  private constructor(
    private readonly _port: number,
    readonly proxy: OutageProxy,
  ) {}

  static async start(): Promise<SoakServers> {
    const port = await freePort();
    const servers = new SoakServers(port, await startOutageProxy(`http://127.0.0.1:${port}/mcp`));
    await servers._startHttp();
    return servers;
  }

  /** Which process holds the tasks of `serverId` now ("down" while none does). */
  epoch(serverId: string): string {
    if (serverId === 'remote') return this._httpUp ? `http#${this._httpEpoch}` : 'down';
    return this._localPid !== undefined ? `pid ${this._localPid}` : 'down';
  }

  private async _startHttp(): Promise<void> {
    const child = spawn(process.execPath, [SERVER, '--http', '--port', String(this._port)], { stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the HTTP server exited (${code}): ${err}`)));
    });
    this._http = child;
    this._httpEpoch++;
    this._httpUp = true;
  }

  /** kill -9 of the HTTP server, started again on the same port (its sessions and tasks are gone). Resolves when it listens again. */
  async restartHttp(): Promise<number> {
    const child = this._http;
    this._httpUp = false;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    await this._startHttp();
    return performance.now();
  }

  /** Nothing listens on the proxy's port for `ms` (connections cut); resolves when it listens again. */
  async outage(ms: number): Promise<number> {
    const r = await fetch(`${this.proxy.control}/down?ms=${ms}`, { method: 'POST' });
    if (!r.ok) throw new Error(`the outage proxy refused: HTTP ${r.status}`);
    await new Promise((resolve) => setTimeout(resolve, ms + 50));
    return performance.now();
  }

  /** kill -9 of the stdio server the host runs; false when none is running. */
  killStdio(): boolean {
    const pid = this._localPid;
    if (pid === undefined) return false;
    this._localPid = undefined;
    try {
      process.kill(pid, 'SIGKILL');
      return true;
    } catch {
      return false;
    }
  }

  dispose(): void {
    this.proxy.stop();
    this._http?.kill('SIGKILL');
  }
}

/** The mcp.json the soak edits: the stdio server, the HTTP one (through the proxy), and a spare that edits add and take away. */
export function configText(proxyUrl: string, spare: boolean, style: number): string {
  const servers: Record<string, unknown> = {
    local: { command: process.execPath, args: [SERVER] },
    remote: { type: 'http', url: proxyUrl },
    ...(spare ? { spare: { command: process.execPath, args: [SERVER, '--no-tasks'] } } : {}),
  };
  // The same servers written differently (a comment, another indent) parse to the same definitions.
  const body = JSON.stringify({ servers }, null, 1 + (style % 3));
  return style % 2 ? `// edited ${style}\n${body}\n` : `${body}\n`;
}

/** Reads `file` through the real parser; a file that does not parse keeps its last good servers (config/lastGood.ts). */
export function readConfig(file: string, lastGood: LastGoodConfig): { readonly servers: ServerDefinition[]; readonly keptLastGood: boolean } {
  const parsed = parseMcpConfig({ kind: 'user', file }, readFileSync(file, 'utf8'));
  const effective = lastGood.apply(file, parsed);
  return { servers: assignUniqueIds(effective.servers), keptLastGood: effective.keptLastGood };
}

/** What a window keeps across a reload: the sent tasks (as the tracker stores them) and the HTTP sessions. */
export class SoakStorage {
  private _tracker: unknown;
  private readonly _sessions = new Map<string, SavedSession>();
  readonly tracker: TrackerStorage = {
    load: () => this._tracker,
    save: (data) => void (this._tracker = data),
  };
  readonly sessions: SessionStore = {
    get: (key) => this._sessions.get(key),
    set: (key, session) => void (session === undefined ? this._sessions.delete(key) : this._sessions.set(key, structuredClone(session))),
  };
}

/** A question a server asked, as the soak's "user" saw it. */
interface Question {
  readonly ctx: ResponderContext;
  /** The core (window) it was asked in. */
  readonly generation: number;
  /** When its owner was first seen ended, while the question still waited. */
  ownerEndedAt?: number;
}

/**
 * The soak's user: answers most questions after a while, leaves some waiting (away from the
 * keyboard) until they are withdrawn. A question still waiting, and not withdrawn, after its owner
 * ended is what the soak counts as left waiting.
 */
export class SoakResponders implements HostResponders {
  readonly waiting = new Set<Question>();
  asked = 0;
  answered = 0;
  withdrawn = 0;
  /** Leaves no more questions waiting (the end of the run). */
  answerAll = false;
  generation = 0;

  constructor(private readonly _random: () => number) {}

  sampling(_p: unknown, ctx: ResponderContext): Promise<CreateMessageResult> {
    return this._ask(ctx, () => ({ model: 'soak', role: 'assistant', content: { type: 'text', text: 'ok' } }));
  }

  elicitation(_p: unknown, ctx: ResponderContext): Promise<ElicitResult> {
    return this._ask(ctx, () => ({ action: 'accept', content: { ok: true } }));
  }

  private _ask<T>(ctx: ResponderContext, answer: () => T): Promise<T> {
    this.asked++;
    const q: Question = { ctx, generation: this.generation };
    this.waiting.add(q);
    // Two in five are left waiting; the others are answered within 0.1–1.5 s.
    const holds = !this.answerAll && this._random() < 0.4;
    const delay = 100 + Math.floor(this._random() * 1400);
    return new Promise<T>((resolve, reject) => {
      const withdraw = () => {
        if (this.waiting.delete(q)) this.withdrawn++;
        reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('withdrawn'));
      };
      if (ctx.signal.aborted) return withdraw();
      const timer = holds
        ? undefined
        : setTimeout(() => {
            ctx.signal.removeEventListener('abort', onAbort);
            if (this.waiting.delete(q)) this.answered++;
            resolve(answer());
          }, delay);
      const onAbort = () => {
        clearTimeout(timer);
        withdraw();
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The extension's core as one window holds it; {@link close} is the window closing (or reloading). */
export class SoakCore {
  readonly ledger = new TaskLedger();
  readonly registry: ServerRegistry;
  readonly tracker: TaskTracker;
  readonly logs = new Map<string, BoundedLog>();
  private readonly _follow: { dispose(): void };

  constructor(storage: SoakStorage, responders: HostResponders, recorder: ProcessRecorder) {
    this.registry = new ServerRegistry({
      sides: hostSides(this.ledger, responders),
      logFor: (def) => {
        const log = new BoundedLog(50);
        log.traceEnabled = false;
        this.logs.set(def.id, log);
        return log;
      },
      variablesFor: () => ({ env: process.env, workspaceFolder: ROOT }),
      sessions: storage.sessions,
      processes: recorder,
      hasWork: (def) => this.tracker.snapshotsWhere((s) => s.serverId === def.id && !isTerminal(s.phase)).length > 0,
    });
    this.tracker = new TaskTracker({
      connectionFor: (id) => this.registry.get(id),
      storage: storage.tracker,
      // Long enough that no task of the run outlives it: a task that ends "expired" was lost, not timed out.
      ttlMs: () => 60 * 60_000,
      defaultPollIntervalMs: 500,
      saveIntervalMs: 200,
    });
    this._follow = this.tracker.followServers(this.registry);
  }

  /** The configured servers, applied as the extension applies a config change (tasks first, then connections). */
  async apply(servers: readonly ServerDefinition[]): Promise<void> {
    this.tracker.setConfiguredServers(servers);
    await this.registry.setDefinitions(servers);
  }

  async close(): Promise<void> {
    await this.tracker.windowClosing();
    this._follow.dispose();
    this.tracker.dispose();
    this.registry.dispose();
    this.ledger.dispose();
  }
}

export function isTerminal(phase: string): boolean {
  return phase === 'done' || phase === 'expired' || phase === 'error';
}
