/**
 * Row 1's requestor: a real SDK `Server` that sends task-augmented `sampling/createMessage`
 * requests to the client under test and measures, on its own side, how long each answer takes.
 * The host drives it phase by phase through one tool, `drive`, so the host can measure its heap
 * between phases:
 *
 * - `create { n, ttl }`: n sequential task-augmented sampling requests → CreateTaskResult latency.
 * - `get { m }`: m sequential `tasks/get` on random created tasks → latency.
 * - `list {}`: walks `tasks/list` from the first page to the last → total time, pages, tasks.
 *
 * Used in process over the SDK's in-memory transport and, through `receiverServerMain.ts`, as a
 * child process over stdio.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** How many created task ids are kept for the random `tasks/get` phase. */
const SAMPLE = 1000;

export interface LatencySummary {
  readonly count: number;
  readonly errors: number;
  readonly firstError?: string;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly wallMs: number;
}

export interface ListSummary {
  readonly ms: number;
  readonly pages: number;
  readonly tasks: number;
  readonly errors: number;
  readonly firstError?: string;
}

function summarize(lat: Float64Array, count: number, errors: number, firstError: string | undefined, wallMs: number): LatencySummary {
  const used = lat.subarray(0, count).sort();
  const q = (p: number) => (count ? used[Math.min(count - 1, Math.max(0, Math.ceil(p * count) - 1))]! : NaN);
  let sum = 0;
  for (let i = 0; i < count; i++) sum += used[i]!;
  return { count, errors, firstError, p50: q(0.5), p99: q(0.99), mean: count ? sum / count : NaN, wallMs };
}

export function createReceiverDriver(): Server {
  const server = new Server({ name: 'bench-receiver-driver', version: '1.0.0' }, { capabilities: { tools: {} } });
  let sample: string[] = [];
  let statusNotifications = 0;
  server.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tasks/status') statusNotifications++;
  };

  async function create(n: number, ttl: number): Promise<LatencySummary & { statusNotifications: number }> {
    sample = [];
    statusNotifications = 0;
    // Which creations to remember for the `get` phase (a uniform random subset).
    const keep = new Set<number>();
    while (keep.size < Math.min(SAMPLE, n)) keep.add(Math.floor(Math.random() * n));
    const lat = new Float64Array(n);
    let count = 0;
    let errors = 0;
    let firstError: string | undefined;
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      try {
        const r = await server.request(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: `question ${i}` } }], maxTokens: 64 },
          },
          CreateTaskResultSchema,
          { task: { ttl } },
        );
        lat[count++] = performance.now() - t0;
        if (keep.has(i)) sample.push(r.task.taskId);
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
    return { ...summarize(lat, count, errors, firstError, performance.now() - started), statusNotifications };
  }

  async function get(m: number): Promise<LatencySummary> {
    const lat = new Float64Array(m);
    let count = 0;
    let errors = 0;
    let firstError: string | undefined;
    const started = performance.now();
    for (let i = 0; i < m && sample.length; i++) {
      const id = sample[Math.floor(Math.random() * sample.length)]!;
      const t0 = performance.now();
      try {
        const task = await server.experimental.tasks.getTask(id);
        if (task.taskId !== id) throw new Error(`tasks/get answered ${task.taskId} for ${id}`);
        lat[count++] = performance.now() - t0;
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
    return summarize(lat, count, errors, firstError, performance.now() - started);
  }

  async function list(): Promise<ListSummary> {
    let cursor: string | undefined;
    let pages = 0;
    let tasks = 0;
    const started = performance.now();
    try {
      do {
        const page = await server.experimental.tasks.listTasks(cursor);
        pages++;
        tasks += page.tasks.length;
        cursor = page.nextCursor;
      } while (cursor);
    } catch (e) {
      return { ms: performance.now() - started, pages, tasks, errors: 1, firstError: e instanceof Error ? e.message : String(e) };
    }
    return { ms: performance.now() - started, pages, tasks, errors: 0 };
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'drive', description: 'Runs one benchmark phase against the client.', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const a = (req.params.arguments ?? {}) as { phase?: string; n?: number; ttl?: number; m?: number };
    let out: unknown;
    switch (a.phase) {
      case 'create':
        out = await create(a.n ?? 1000, a.ttl ?? 3_600_000);
        break;
      case 'get':
        out = await get(a.m ?? 1000);
        break;
      case 'list':
        out = await list();
        break;
      default:
        return { content: [{ type: 'text', text: `unknown phase ${a.phase}` }], isError: true };
    }
    return { content: [{ type: 'text', text: JSON.stringify(out) }] };
  });
  return server;
}
