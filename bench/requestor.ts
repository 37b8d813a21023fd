/**
 * Section 2 (`requestor`) — the requestor. 200 tool tasks sent at once to one SDK server (child process, stdio)
 * whose tasks take 5 s and suggest `pollInterval` 250 ms: (a) this project's `TaskTracker`
 * over an `McpConnection`, (b) the SDK's own `client.experimental.tasks.callToolStream` loop, one
 * per task. The server counts every `tasks/get` and `tasks/result` per task.
 */
import { readFileSync } from 'node:fs';
import { requestorSides } from '../src/core/requestor/hostSides.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpConnection } from '../src/core/connection/connection.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import { REQUESTOR_SERVER_JS, ROOT, childEnv, stdioServer, toolJson } from './common.js';
import { POLL_INTERVAL_MS, type TaskRecordStats } from './requestorServer.js';

export interface RequestorRun {
  /** Host CPU (user+system, ms) from the first call to the last result. */
  readonly cpuMs: number;
  /** Of that, the main thread's (the JavaScript; not the compiler's or the GC's helper threads); NaN where /proc is missing. */
  readonly mainCpuMs: number;
  readonly wallMs: number;
  readonly tasks: number;
  /** Per task: tasks/get ÷ (its life / pollInterval); life = creation → its tasks/result arrived. */
  readonly getsPerInterval: number[];
  /** Per task: most tasks/get inside any window of 0.9 × pollInterval. */
  readonly burst: number[];
  /** Per task: tasks/get count. */
  readonly gets: number[];
  /** Per task: tasks/result count. */
  readonly results: number[];
  /** Tasks whose outcome the host did not get. */
  readonly missing: number;
}

/** Burst window: one pollInterval less 10 % for timer and transport jitter. */
export const BURST_WINDOW_MS = POLL_INTERVAL_MS * 0.9;

function analyse(stats: Record<string, TaskRecordStats>, cpuMs: number, mainCpuMs: number, wallMs: number, missing: number): RequestorRun {
  const out = { getsPerInterval: [] as number[], burst: [] as number[], gets: [] as number[], results: [] as number[] };
  for (const rec of Object.values(stats)) {
    const end = rec.results[0] ?? rec.gets[rec.gets.length - 1] ?? rec.createdAt;
    const life = Math.max(end - rec.createdAt, 1);
    out.getsPerInterval.push(rec.gets.length / (life / POLL_INTERVAL_MS));
    let burst = rec.gets.length ? 1 : 0;
    for (let i = 0, j = 0; i < rec.gets.length; i++) {
      while (rec.gets[i]! - rec.gets[j]! >= BURST_WINDOW_MS) j++;
      burst = Math.max(burst, i - j + 1);
    }
    out.burst.push(burst);
    out.gets.push(rec.gets.length);
    out.results.push(rec.results.length);
  }
  return { cpuMs, mainCpuMs, wallMs, tasks: Object.keys(stats).length, missing, ...out };
}

/**
 * Resolves once every task of `keys` has finished: on the tracker's change events, reading only
 * the changed task's phase (the SDK side waits on its streams; a timer polling `activeCount`
 * here charged the project ~2 % of its CPU for the harness).
 */
function allFinished(tracker: TaskTracker, keys: readonly string[], ms: number): Promise<void> {
  const phaseOf = (key: string) => tracker._task(key)?.record.phase;
  const open = new Set(keys.filter((k) => phaseOf(k) === 'tracking' || phaseOf(k) === 'sending'));
  if (open.size === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${open.size} tracked tasks`));
    }, ms);
    const sub = tracker.onDidChange((e) => {
      if (!open.has(e.key)) return;
      const phase = phaseOf(e.key);
      if (phase === 'tracking' || phase === 'sending') return;
      open.delete(e.key);
      if (open.size > 0) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}

/** CPU time of the main thread so far, ms (Linux: /proc/self/task/<pid>/schedstat, in ns; NaN elsewhere). */
function mainThreadMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

export async function projectRequestor(count: number, taskMs: number): Promise<RequestorRun> {
  const connection = new McpConnection(stdioServer('bench-requestor', REQUESTOR_SERVER_JS), {
    sides: requestorSides(),
    variables: { env: process.env, workspaceFolder: ROOT },
  });
  const tracker = new TaskTracker({ connectionFor: () => connection, ttlMs: () => 600_000 });
  try {
    await connection.start();
    const tool = { name: 'slow', execution: { taskSupport: 'required' as const } };
    const c0 = process.cpuUsage();
    const m0 = mainThreadMs();
    const t0 = performance.now();
    const keys = await Promise.all(Array.from({ length: count }, () => tracker.callTool(connection, tool, { ms: taskMs })));
    await allFinished(tracker, keys, taskMs + 60_000);
    const cpu = cpuMs(c0);
    const main = mainThreadMs() - m0;
    const wall = performance.now() - t0;
    const missing = keys.filter((k) => {
      const s = tracker.get(k);
      return s?.phase !== 'done' || s.outcome?.kind !== 'result';
    }).length;
    const stats = toolJson<Record<string, TaskRecordStats>>(await connection.client.callTool({ name: 'stats', arguments: {} }));
    return analyse(stats, cpu, main, wall, missing);
  } finally {
    tracker.dispose();
    connection.dispose();
  }
}

export async function sdkRequestor(count: number, taskMs: number): Promise<RequestorRun> {
  const client = new Client({ name: 'bare-sdk-client', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [REQUESTOR_SERVER_JS], env: childEnv(), stderr: 'pipe' }));
  try {
    const c0 = process.cpuUsage();
    const m0 = mainThreadMs();
    const t0 = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: count }, async () => {
        let ok = false;
        for await (const m of client.experimental.tasks.callToolStream({ name: 'slow', arguments: { ms: taskMs } }, CallToolResultSchema, { task: { ttl: 600_000 } })) {
          if (m.type === 'result') ok = true;
        }
        return ok;
      }),
    );
    const cpu = cpuMs(c0);
    const main = mainThreadMs() - m0;
    const wall = performance.now() - t0;
    const stats = toolJson<Record<string, TaskRecordStats>>(await client.callTool({ name: 'stats', arguments: {} }, CallToolResultSchema));
    return analyse(stats, cpu, main, wall, outcomes.filter((ok) => !ok).length);
  } finally {
    await client.close();
  }
}
