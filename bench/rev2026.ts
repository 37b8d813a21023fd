/**
 * Section 8 (`rev2026`) — MCP 2026-07-28 against a bare SDK v2 client, on the bench's own 2026-07-28 server
 * (rev2026Server.ts, SDK v2 `@modelcontextprotocol/server` 2.4.0, in a child process):
 *
 * - `tools/call`: `echo`, one call at a time; (a) this project's `McpConnection` + `TaskTracker`
 *   (the call as the extension makes it, tracked to its result) against (b) a bare SDK v2 `Client`
 *   (`versionNegotiation` pinned to 2026-07-28) awaiting `callTool`. Latency on the host's clock
 *   (call → result in hand), and host CPU per call (the server is another process);
 * - one `input_required` round trip: `ask`, whose first answer asks one form; (a) answered by the
 *   host's responders at once, the call's owner retrying it (requestor/callRounds.ts), (b) by the bare
 *   client's `elicitation/create` handler at once (the SDK's automatic fulfilment retries the call).
 *
 * Over stdio (each side its own server process) and over stateless Streamable HTTP (one server
 * process both sides call).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import type { ServerDefinition } from '../src/core/config/config.js';
import { MAX_TIMER_DELAY_MS } from '../src/core/config/limits.js';
import { McpConnection } from '../src/core/connection/connection.js';
import { TaskLedger } from '../src/core/receiver/ledger.js';
import { hostSides } from '../src/core/requestor/hostSides.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import { ROOT, childEnv } from './common.js';
import { fullGc } from './stats.js';

/**
 * A full collection before a side's calls: the bench process holds the heap of every section
 * before this one, and a major collection of it (tens of ms) fell into whichever side's 200 calls
 * crossed the threshold, by turns the project's or the bare client's (host CPU per call by round,
 * e.g. 243, 158, 247, 185, 247 µs). Each side now starts on a collected heap, and pays for what its
 * own calls allocate.
 *
 * The collection comes before the unmeasured calls, not between them and the measured ones ({@link
 * measure}): it also throws away optimized code whose embedded hidden classes died with it (V8's
 * deopt for "weak objects": the last round's messages, records and transports), and right before
 * the measured calls that code was compiled again inside them. The side with more code of its own
 * paid more for it: in four runs of section 8's stdio tools/call rounds, the project's host CPU over
 * the bare client's read 1.198×, 1.053×, 1.157×, 1.155× with the collection last, and 1.004×,
 * 1.016×, 1.003×, 0.967× with it first (main-thread CPU per call then level, e.g. 298 against 296 µs).
 */
const settledHeap = (): Promise<void> => fullGc();

export const REV2026_SERVER_JS = resolve(__dirname, 'rev2026ServerMain.js');
export type Rev2026Kind = 'stdio' | 'http';
export type Rev2026Tool = 'echo' | 'ask';
const ARGS: Record<Rev2026Tool, Record<string, unknown>> = { echo: { text: 'bench' }, ask: {} };
const EXPECTED: Record<Rev2026Tool, string> = { echo: 'echo: bench', ask: 'Hello, bench!' };

export interface CallRun {
  /** ms from the call to its result in hand, per measured call. */
  readonly latencies: number[];
  /** Host CPU (user + system) per measured call, ms. */
  readonly cpuPerCallMs: number;
}

/** A started Streamable HTTP server (rev2026ServerMain.ts --http). */
export async function startHttp2026(): Promise<{ url: string; stop(): void }> {
  const child: ChildProcess = spawn(process.execPath, [REV2026_SERVER_JS, '--http'], { stdio: ['ignore', 'ignore', 'pipe'], env: childEnv() });
  const url = await new Promise<string>((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`the 2026-07-28 bench server did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => fail(new Error(`the 2026-07-28 bench server exited (${code}): ${err}`)));
  });
  return { url, stop: () => void child.kill() };
}

/** The bench server as a configured server: over stdio (a process of its own) or at `url`. */
export function definition(kind: Rev2026Kind, url?: string): ServerDefinition {
  const transport = kind === 'stdio' ? { type: 'stdio' as const, command: process.execPath, args: [REV2026_SERVER_JS], env: {} } : { type: 'http' as const, url: url!, headers: {} };
  return { id: 'bench-2026', name: 'bench-2026', source: { kind: 'user', file: 'bench' }, transport, inputs: [] };
}

function textOf(result: unknown): string {
  const c = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return c.find((x) => x.type === 'text')?.text ?? '';
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/**
 * `settle`, then `warm` unmeasured calls, then `count` measured ones, one at a time: the round-trip
 * rows collect the heap first ({@link settledHeap}), and what the collection undid is made again
 * in the unmeasured calls.
 */
export async function measure(call: () => Promise<void>, count: number, warm: number, settle?: () => Promise<void>): Promise<CallRun> {
  await settle?.();
  for (let i = 0; i < warm; i++) await call();
  const latencies: number[] = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await call();
    latencies.push(performance.now() - t0);
  }
  return { latencies, cpuPerCallMs: cpuMs(c0) / count };
}

/** The host's side of a call, as the extension installs it: `McpConnection` + `TaskTracker`, with both sides. */
export interface ProjectHost {
  readonly connection: McpConnection;
  /** One call tracked to its result, checked. */
  call(tool: Rev2026Tool): Promise<void>;
  /** `connection`'s client called with the host's request options ({@link hostRequestOptions}), checked: the call without its owner. */
  callOnConnection(tool: Rev2026Tool): Promise<void>;
  dispose(): void;
}

/** Starts a {@link ProjectHost} on `definition` (through `transportFactory` when given) and waits until it runs 2026-07-28. */
export async function startProjectHost(definition: ServerDefinition, transportFactory?: () => Transport): Promise<ProjectHost> {
  // Both sides, as the extension installs them (extension.ts): the `ask` row's question is answered by the receiver's side.
  const ledger = new TaskLedger();
  const connection = new McpConnection(definition, {
    sides: hostSides(ledger, {
      sampling: async () => {
        throw new Error('unused');
      },
      elicitation: async () => ({ action: 'accept', content: { name: 'bench' } }),
    }),
    variables: { env: process.env, workspaceFolder: ROOT },
    ...(transportFactory ? { transportFactory } : {}),
  });
  const tracker = new TaskTracker({ connectionFor: () => connection });
  const dispose = () => {
    tracker.dispose();
    connection.dispose();
    ledger.dispose();
  };
  try {
    await connection.start();
    const state = connection.state;
    if (state.kind !== 'running' || state.protocolVersion !== '2026-07-28') throw new Error(`project side: ${JSON.stringify(state)}`);
  } catch (e) {
    dispose();
    throw e;
  }
  return {
    connection,
    async call(tool) {
      const s = tracker.get(await tracker.callTool(connection, { name: tool }, ARGS[tool]));
      if (s?.outcome?.kind !== 'result' || textOf(s.outcome.result) !== EXPECTED[tool]) throw new Error(`project ${tool}: ${JSON.stringify(s?.outcome ?? s?.phase)}`);
    },
    async callOnConnection(tool) {
      const r = await connection.client.callTool({ name: tool, arguments: ARGS[tool] }, hostRequestOptions());
      if (textOf(r) !== EXPECTED[tool]) throw new Error(`connection ${tool}: ${JSON.stringify(r)}`);
    },
    dispose,
  };
}

export async function projectCalls(kind: Rev2026Kind, tool: Rev2026Tool, count: number, warm: number, url?: string): Promise<CallRun> {
  const host = await startProjectHost(definition(kind, url));
  try {
    return await measure(() => host.call(tool), count, warm, settledHeap);
  } finally {
    host.dispose();
  }
}

/**
 * The signal of {@link hostRequestOptions}. The host's calls, one at a time, each get the controller the
 * call before gave back (base/reusedAbort.ts: a fresh signal per call cost the SDK's request code about
 * 12 µs more, each one a new hidden class); these calls are never aborted, so one controller serves them all.
 */
const hostController = new AbortController();

/**
 * What the host gives each of its requests (McpConnection + TaskTracker, sending.ts): an AbortSignal
 * (for Cancel and for the window going; used again once its request settled, as the host's is), a
 * progress callback (the row's progress) and the no-timeout timeout.
 */
export function hostRequestOptions(): { signal: AbortSignal; onprogress: () => void; timeout: number } {
  return { signal: hostController.signal, onprogress: () => undefined, timeout: MAX_TIMER_DELAY_MS };
}

/** A bare SDK v2 client pinned to 2026-07-28 that accepts the `ask` tool's form at once (not yet connected). */
export function newBareClient(): ClientV2 {
  const client = new ClientV2({ name: 'bare-sdk-v2-client', version: '2.4.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'bench' } }));
  return client;
}

/** One call on the bare client (`hostOptions`: with {@link hostRequestOptions}), checked. */
export async function bareCall(client: ClientV2, tool: Rev2026Tool, hostOptions: boolean): Promise<void> {
  const r = hostOptions ? await client.callTool({ name: tool, arguments: ARGS[tool] }, hostRequestOptions()) : await client.callTool({ name: tool, arguments: ARGS[tool] });
  if (textOf(r) !== EXPECTED[tool]) throw new Error(`bare ${tool}: ${JSON.stringify(r)}`);
}

/**
 * The bare SDK v2 client. `hostOptions`: each call made with what the host gives each of its
 * requests ({@link hostRequestOptions}): what the SDK itself charges for those features, without
 * anything of the project's.
 */
export async function bareCalls(kind: Rev2026Kind, tool: Rev2026Tool, count: number, warm: number, url?: string, hostOptions = false): Promise<CallRun> {
  const client = newBareClient();
  await client.connect(
    kind === 'stdio' ? new StdioClientTransportV2({ command: process.execPath, args: [REV2026_SERVER_JS], env: childEnv(), stderr: 'pipe' }) : new StreamableHTTPClientTransport(new URL(url!)),
  );
  try {
    return await measure(() => bareCall(client, tool, hostOptions), count, warm, settledHeap);
  } finally {
    await client.close();
  }
}
