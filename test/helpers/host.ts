/**
 * Test helpers: a core host (ledger + connections) with deterministic responders, and
 * waiting on state through events (never sleeps).
 */
import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { hostSides } from '../../src/core/requestor/hostSides.js';
import { receiverOf } from '../../src/core/receiver/wire/receiverSide.js';
import type { ServerDefinition } from '../../src/core/config/config.js';
import type { ConnectGate, GateVerdict } from '../../src/core/config/gate.js';
import { McpConnection, type ServerLog } from '../../src/core/connection/connection.js';
import type { HostResponders, ResponderContext } from '../../src/core/receiver/wire/responders.js';
import { Emitter, type Event } from '../../src/core/base/event.js';
import { TaskLedger, type LedgerLimits } from '../../src/core/receiver/ledger.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const TSX = resolve(ROOT, 'node_modules', '.bin', 'tsx');
/** A bundled fixture server (built by `node esbuild.mjs` into dist/fixtures). */
export function fixture(name: string): string {
  return resolve(ROOT, 'dist', 'fixtures', `${name}.js`);
}

/**
 * A log that keeps its lines, for assertions. Its emitter is made only for a test that listens
 * ({@link onLine}): such a test disposes the log; the others need not.
 */
export class MemoryLog implements ServerLog {
  readonly lines: string[] = [];
  private _onLine?: Emitter<string>;
  /** Fires with every line logged. */
  get onLine(): Event<string> {
    this._onLine ??= new Emitter<string>();
    return this._onLine.event;
  }
  dispose(): void {
    this._onLine?.dispose();
  }
  private _add(l: string) {
    this.lines.push(l);
    this._onLine?.fire(l);
  }
  trace(m: string) { this._add(`trace ${m}`); }
  debug(m: string) { this._add(`debug ${m}`); }
  info(m: string) { this._add(`info ${m}`); }
  warn(m: string) { this._add(`warn ${m}`); }
  error(m: string) { this._add(`error ${m}`); }
}

/** Responders a test controls: by default sampling echoes, elicitation accepts `{}`. */
export class ScriptedResponders implements HostResponders {
  sampleImpl: (p: Parameters<HostResponders['sampling']>[0], ctx: ResponderContext) => Promise<CreateMessageResult> = async (p) => ({
    model: 'test-model',
    role: 'assistant',
    content: { type: 'text', text: `echo: ${lastUserText(p.messages)}` },
    stopReason: 'endTurn',
  });
  elicitImpl: (p: Parameters<HostResponders['elicitation']>[0], ctx: ResponderContext) => Promise<ElicitResult> = async () => ({ action: 'accept', content: {} });
  readonly calls: Array<{ kind: 'sampling' | 'elicitation'; ctx: ResponderContext }> = [];
  sampling(p: Parameters<HostResponders['sampling']>[0], ctx: ResponderContext) {
    this.calls.push({ kind: 'sampling', ctx });
    return this.sampleImpl(p, ctx);
  }
  elicitation(p: Parameters<HostResponders['elicitation']>[0], ctx: ResponderContext) {
    this.calls.push({ kind: 'elicitation', ctx });
    return this.elicitImpl(p, ctx);
  }
}

function lastUserText(messages: ReadonlyArray<{ role: string; content: unknown }>): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const parts = Array.isArray(m.content) ? m.content : [m.content];
    for (const c of parts as Array<{ type?: string; text?: string }>) if (c?.type === 'text') return c.text ?? '';
  }
  return '';
}

/**
 * A gate a test controls: `verdict` decides every connect and whether a server may stay;
 * `asked` lists the ids it was asked about (one per connect); `changed()` makes the registry re-check.
 */
export function testGate(verdict: (def: ServerDefinition) => GateVerdict | Promise<GateVerdict>) {
  const changes = new Emitter<void>();
  const asked: string[] = [];
  const gate: ConnectGate = {
    mayConnect: (def) => {
      asked.push(def.id);
      return verdict(def);
    },
    mayStay: async (def) => verdict(def),
    onDidChange: changes.event,
  };
  return { gate, asked, changed: () => changes.fire(), dispose: () => changes.dispose() };
}

export function stdioDefinition(id: string, command: string, args: string[], extra: Partial<ServerDefinition> = {}): ServerDefinition {
  return {
    id,
    name: id,
    source: { kind: 'user', file: 'test settings' },
    transport: { type: 'stdio', command, args, env: {} },
    inputs: [],
    ...extra,
  };
}

export function httpDefinition(id: string, url: string): ServerDefinition {
  return { id, name: id, source: { kind: 'user', file: 'test settings' }, transport: { type: 'http', url, headers: {} }, inputs: [] };
}

/** A host for one server: ledger, responders, connection (and its receiver side's received tasks). */
export function makeHost(def: ServerDefinition, limits: Partial<LedgerLimits> = {}, ledger = new TaskLedger({ limits })) {
  const responders = new ScriptedResponders();
  const log = new MemoryLog();
  const connection = new McpConnection(def, { sides: hostSides(ledger, responders), log, variables: { env: process.env, workspaceFolder: ROOT } });
  return {
    ledger,
    responders,
    log,
    connection,
    /** The connection's receiver side (receiver/wire/receiverSide.ts). */
    receiver: receiverOf(connection)!,
    /** The server's received tasks (its part of the ledger). */
    tasks: receiverOf(connection)!.tasks,
    dispose() {
      connection.dispose();
      ledger.dispose();
      log.dispose();
    },
  };
}

/** Resolves when `check()` is true, re-checking whenever `event` fires; rejects after `ms` with `what`. */
export function waitFor<T>(event: Event<T>, check: () => boolean, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const sub = event(() => {
      if (check()) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

/**
 * Resolves with `promise`, or rejects after `ms` naming `what`. Its timer is a live handle: the
 * extension host's event loop never runs dry, but a test's can while only unref'd timers (a throttled
 * write) are pending, and Node then ends the test with "Promise resolution is still pending".
 */
export function settles<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Parses the text content of a probe answer. */
export function textOf(result: unknown): string {
  const c = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return c.filter((x) => x.type === 'text').map((x) => x.text ?? '').join('');
}

/**
 * Starts the bundled fixture `script` as an HTTP server process (`--http` plus `flags`); resolves
 * with its URL once it prints "listening on <url>", rejects (naming `label`) if it exits first or
 * does not start within `ms`.
 */
export async function startHttpFixture(script: string, flags: readonly string[], label: string, ms: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [script, '--http', ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${label} did not start: ${err}`)), ms);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code}): ${err}`));
    });
  });
  return { url, child };
}
