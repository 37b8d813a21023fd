/**
 * Section 6 (`tasks-extension`) — the 2026-07-28 Tasks extension requestor: N tool calls sent at once to the demo
 * server's Tasks extension mode (`dist/demo-server.js --tasks-extension`, child process, stdio),
 * each a task of `steps` × `stepMs` with `pollIntervalMs` 250: (a) this project's `TaskTracker`
 * (wire2026_07_28 over an `McpConnection`), (b) the requester session of
 * `@modelcontextprotocol/ext-tasks` 0.2.2 (`withTasks` over a session port on a bare SDK v1
 * `Client`). Still SDK v1 under the library, by necessity: a bare SDK v2 client takes `resultType`
 * off the results it hands over, so the session cannot tell the task answer to a `tools/call`
 * (`resultType: "task"`) from a plain result (ProtocolDecodeError), and the library's own v2 adapter
 * (`createTaskSessionFromClient`) needs a host-owned raw dispatcher (`rawDispatch`) for the
 * extension's generation — what the project's requestor/wire/tasksExtension.ts is. The server records
 * every tasks/get per task (`ext_stats`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { requestorSides } from '../src/core/requestor/hostSides.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { withTasks, type ConnectedMcpSessionPort, type JsonRpcResponse } from '@modelcontextprotocol/ext-tasks/client';
import { McpConnection } from '../src/core/connection/connection.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import { ROOT, childEnv, toolJson, until } from './common.js';

export const EXT_POLL_MS = 250;
const DEMO = resolve(ROOT, 'dist', 'demo-server.js');

export interface ExtRun {
  readonly cpuMs: number;
  readonly tasks: number;
  /** Per task: tasks/get ÷ (its life / pollInterval); life = creation → the tasks/get that saw it end. */
  readonly getsPerInterval: number[];
  /** Per task: most tasks/get inside any window of 0.9 × pollInterval. */
  readonly burst: number[];
  /** Tasks whose result the host did not get. */
  readonly missing: number;
}

interface ExtStats {
  tasks: Record<string, { createdAtMs: number; gets: number[]; getAnswers?: unknown }>;
}

function analyse(stats: ExtStats, cpuMs: number, missing: number): ExtRun {
  const getsPerInterval: number[] = [];
  const burst: number[] = [];
  for (const t of Object.values(stats.tasks)) {
    const life = Math.max((t.gets.at(-1) ?? t.createdAtMs) - t.createdAtMs, 1);
    getsPerInterval.push(t.gets.length / (life / EXT_POLL_MS));
    let b = t.gets.length ? 1 : 0;
    for (let i = 0, j = 0; i < t.gets.length; i++) {
      while (t.gets[i]! - t.gets[j]! >= EXT_POLL_MS * 0.9) j++;
      b = Math.max(b, i - j + 1);
    }
    burst.push(b);
  }
  return { cpuMs, tasks: Object.keys(stats.tasks).length, getsPerInterval, burst, missing };
}

function cpuSince(c0: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / 1000;
}

const env = () => ({ ...childEnv(), DEMO_POLL_INTERVAL_MS: String(EXT_POLL_MS) });

function needDemo(): void {
  if (!existsSync(DEMO)) throw new Error(`${DEMO} is missing: run \`node esbuild.mjs\` first`);
}

export async function projectExt(count: number, steps: number, stepMs: number): Promise<ExtRun> {
  needDemo();
  const connection = new McpConnection(
    { id: 'bench-ext', name: 'bench-ext', source: { kind: 'user', file: 'bench' }, transport: { type: 'stdio', command: process.execPath, args: [DEMO, '--tasks-extension'], env: { DEMO_POLL_INTERVAL_MS: String(EXT_POLL_MS) } }, inputs: [] },
    { sides: requestorSides(), variables: { env: process.env, workspaceFolder: ROOT } },
  );
  const tracker = new TaskTracker({ connectionFor: () => connection });
  try {
    await connection.start();
    const c0 = process.cpuUsage();
    const keys = await Promise.all(Array.from({ length: count }, () => tracker.callTool(connection, { name: 'ext_count' }, { steps, stepMs })));
    await until(() => tracker.activeCount === 0, 'all tracked tasks done', steps * stepMs + 60_000, 20);
    const cpu = cpuSince(c0);
    const missing = keys.filter((k) => tracker.get(k)?.outcome?.kind !== 'result').length;
    return analyse(toolJson<ExtStats>(await connection.client.callTool({ name: 'ext_stats', arguments: {} })), cpu, missing);
  } finally {
    tracker.dispose();
    connection.dispose();
  }
}

/** A session port (the library's abstraction) over a connected SDK v1 client declaring the extension. */
function portOf(client: Client): ConnectedMcpSessionPort {
  const listeners = new Set<(n: never) => void>();
  client.fallbackNotificationHandler = async (n) => {
    for (const l of listeners) l({ jsonrpc: '2.0', ...n } as never);
  };
  return {
    endpointId: 'bench-ext',
    taskCapabilities: { generation: 'v2', capabilities: {} },
    invalidated: false,
    async dispatch(request, options): Promise<JsonRpcResponse> {
      const { method, params } = request as { method: string; params?: Record<string, unknown> };
      try {
        const result = await client.request({ method, params }, z.looseObject({}), { signal: options?.signal, timeout: 600_000 });
        return { kind: 'result', result: result as never };
      } catch (e) {
        if (e instanceof McpError) return { kind: 'error', error: { code: e.code, message: e.message } };
        throw e;
      }
    },
    onServerRequest: () => () => undefined,
    onNotification(listener) {
      listeners.add(listener as (n: never) => void);
      return () => listeners.delete(listener as (n: never) => void);
    },
    onInvalidated: () => () => undefined,
  };
}

export async function libraryExt(count: number, steps: number, stepMs: number): Promise<ExtRun> {
  needDemo();
  const client = new Client({ name: 'ext-tasks-session', version: '0.2.2' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [DEMO, '--tasks-extension'], env: env(), stderr: 'pipe' }));
  const session = withTasks(portOf(client));
  try {
    const c0 = process.cpuUsage();
    const outcomes = await Promise.all(
      Array.from({ length: count }, async () => {
        const execution = await session.callTool('ext_count', { steps, stepMs });
        const { outcome } = await execution.settle();
        return (outcome as { status?: string }).status;
      }),
    );
    const cpu = cpuSince(c0);
    const stats = toolJson<ExtStats>(await client.callTool({ name: 'ext_stats', arguments: {} }, CallToolResultSchema));
    return analyse(stats, cpu, outcomes.filter((s) => s !== 'completed').length);
  } finally {
    await session.close().catch(() => undefined);
    await client.close();
  }
}
