/**
 * A host (McpConnection, TaskTracker, scripted responders) on the demo server's MCP 2026-07-28
 * mode (`dist/demo-server.js --revision 2026-07-28`, examples/demo-server/serve2026.ts) over stdio
 * or Streamable HTTP, and what that server saw (its `ext_stats`: tasks, each request with its
 * envelope and HTTP headers, the input_required rounds, the requestState checks). Needs
 * `node esbuild.mjs` first.
 */
import type { ChildProcess } from 'node:child_process';
import { hostSides } from '../../src/core/requestor/hostSides.js';
import { receiverOf } from '../../src/core/receiver/wire/receiverSide.js';
import { resolve } from 'node:path';
import type { ServerDefinition } from '../../src/core/config/config.js';
import { McpConnection } from '../../src/core/connection/connection.js';
import { TaskLedger } from '../../src/core/receiver/ledger.js';
import type { SeenRequest, SeenRound } from '../../examples/demo-server/seen2026.js';
import { extTracker, type ExtStats } from './extTasks.js';
import { httpDefinition, MemoryLog, ROOT, ScriptedResponders, startHttpFixture, textOf } from './host.js';

export const DEMO = resolve(ROOT, 'dist', 'demo-server.js');
export const REV2026 = ['--revision', '2026-07-28'];
export const WAIT_MS = 20_000;
export const TASKS = 'io.modelcontextprotocol/tasks';

/** What the 2026-07-28 demo server saw. */
export interface Stats2026 extends ExtStats {
  requests: SeenRequest[];
  rounds: SeenRound[];
  requestStates: { verified: number; rejected: number };
}

export function stdio2026(id: string, extraArgs: string[] = []): ServerDefinition {
  return {
    id,
    name: id,
    source: { kind: 'user', file: 'test settings' },
    transport: { type: 'stdio', command: process.execPath, args: [DEMO, ...REV2026, ...extraArgs], env: { DEMO_POLL_INTERVAL_MS: '50' } },
    inputs: [],
  };
}

/** Starts `dist/demo-server.js --revision 2026-07-28 --http --port 0 …extraArgs` (pollInterval 50 ms). */
export async function startHttp2026(extraArgs: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const before = process.env.DEMO_POLL_INTERVAL_MS;
  process.env.DEMO_POLL_INTERVAL_MS = '50';
  try {
    return await startHttpFixture(DEMO, [...REV2026, '--port', '0', ...extraArgs], 'the 2026-07-28 demo server', WAIT_MS);
  } finally {
    if (before === undefined) delete process.env.DEMO_POLL_INTERVAL_MS;
    else process.env.DEMO_POLL_INTERVAL_MS = before;
  }
}

export function http2026(id: string, url: string): ServerDefinition {
  return httpDefinition(id, url);
}

/** A started host on `def`, with a tracker and the server's stats. */
export async function host2026(def: ServerDefinition) {
  const ledger = new TaskLedger({});
  const responders = new ScriptedResponders();
  const log = new MemoryLog();
  const connection = new McpConnection(def, { sides: hostSides(ledger, responders), log, variables: { env: process.env, workspaceFolder: ROOT } });
  const ext = extTracker(connection, ledger, WAIT_MS);
  try {
    await connection.start();
  } catch (e) {
    ext.dispose();
    log.dispose();
    throw e;
  }
  return {
    connection,
    responders,
    log,
    /** The server's received tasks (the connection's receiver side). */
    tasks: receiverOf(connection)!.tasks,
    ...ext,
    stats: async () => (await ext.stats()) as Stats2026,
    dispose(): void {
      ext.dispose();
      log.dispose();
    },
    /** The text of a finished call's result. */
    resultText(key: string): string {
      const s = ext.tracker.get(key);
      return s?.outcome?.kind === 'result' ? textOf(s.outcome.result) : `(no result: ${JSON.stringify(s?.outcome ?? s?.reason)})`;
    },
  };
}

/**
 * The two transports every 2026 test runs on: stdio (a process per host) and HTTP (one server
 * process per call of this, started on first use), with the server's `extraArgs`.
 */
export function transports2026(extraArgs: string[] = []): { name: 'stdio' | 'http'; def: (id: string) => Promise<ServerDefinition>; stop(): void }[] {
  let http: Promise<{ url: string; child: ChildProcess }> | undefined;
  return [
    { name: 'stdio', def: async (id) => stdio2026(id, extraArgs), stop: () => undefined },
    {
      name: 'http',
      def: async (id) => http2026(id, (await (http ??= startHttp2026(extraArgs))).url),
      stop: () => void http?.then(({ child }) => child.kill()),
    },
  ];
}

/**
 * Makes the responders' elicitations forms nobody answers: each settles only when its request is
 * withdrawn (its signal aborts). `opened` resolves with the key of the call the first one came in.
 */
export function formLeftOpen(responders: ScriptedResponders): { opened: Promise<string>; withdrawn: () => boolean } {
  let withdrawn = false;
  const opened = new Promise<string>((resolveOpen) => {
    responders.elicitImpl = (_p, ctx) => {
      resolveOpen(ctx.sentTask!.key);
      return new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          withdrawn = true;
          reject(ctx.signal.reason);
        }),
      );
    };
  });
  return { opened, withdrawn: () => withdrawn };
}
