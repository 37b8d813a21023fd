/**
 * Section 1's (`receiver`) requestor: a real SDK `Server` that sends task-augmented `sampling/createMessage`
 * requests to the client under test and measures, on its own side, how long each answer takes.
 * The host drives it phase by phase through one tool, `drive`, so the host can measure its heap
 * between phases:
 *
 * - `create { n, ttl, keep }`: n sequential task-augmented sampling requests → each one's
 *   CreateTaskResult latency; keeps each created id with probability `keep` for `get`.
 * - `get { m }`: m sequential `tasks/get` on random kept tasks → latencies.
 * - `list { cursor?, pages }`: walks up to `pages` pages of `tasks/list` → time, tasks, next cursor.
 * - `reset {}`: forgets the kept ids.
 *
 * Used in process over the SDK's in-memory transport and, through `receiverServerMain.ts`, as a
 * child process over stdio. As a child it runs a young-generation GC at the start of each
 * `create` and `get` block, before the block's first (uncounted) request: the same as the bench
 * does in the host before each block (receiver.ts, minorGc), so a scavenge of the server's own
 * garbage (one per ~200 requests here, pausing it 1–3 ms) falls in a block only when that
 * block's own traffic causes it. Without it, about 0.5 % of the requests over stdio, on both
 * sides alike, waited on the server's GC, and p99 sat among those pauses.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolRequestSchema, ListTasksResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** Latencies in ms (rounded to 0.1 µs), in the order sent. */
export interface LatencyBlock {
  readonly latencies: number[];
  readonly errors: number;
  readonly firstError?: string;
}

export interface CreateBlock extends LatencyBlock {
  readonly statusNotifications: number;
  /** Status notifications that arrived before their task's CreateTaskResult. */
  readonly earlyNotifications: number;
}

export interface ListChunk {
  readonly ms: number;
  readonly pages: number;
  readonly tasks: number;
  /** Where the walk goes on, or null at the end. */
  readonly cursor: string | null;
  readonly errors: number;
  readonly firstError?: string;
}

const round = (ms: number) => Math.round(ms * 10_000) / 10_000;

export interface ReceiverDriverOptions {
  /** A young-generation GC (needs `--expose-gc`) at the start of each create and get block. */
  readonly minorGcBeforeBlock?: boolean;
}

export function createReceiverDriver(options: ReceiverDriverOptions = {}): Server {
  const minorGc = options.minorGcBeforeBlock ? () => (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc?.({ type: 'minor' }) : () => undefined;
  const server = new Server({ name: 'bench-receiver-driver', version: '1.0.0' }, { capabilities: { tools: {} } });
  /** Ids of created tasks kept for the `get` phase (a uniform random subset). */
  let sample: string[] = [];
  let statusNotifications = 0;
  /** Status notifications that arrived before the CreateTaskResult of their task. */
  let early = 0;
  let answered = new Set<string>();
  server.fallbackNotificationHandler = async (n) => {
    if (n.method !== 'notifications/tasks/status') return;
    statusNotifications++;
    if (!answered.has((n.params as { taskId?: string }).taskId ?? '')) early++;
  };

  async function create(n: number, ttl: number, keep: number): Promise<CreateBlock> {
    statusNotifications = 0;
    early = 0;
    answered = new Set();
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
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
        latencies.push(round(performance.now() - t0));
        answered.add(r.task.taskId);
        if (Math.random() < keep) sample.push(r.task.taskId);
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
    // Notifications still in flight are counted by the next block; fine for a per-task average.
    return { latencies, errors, firstError, statusNotifications, earlyNotifications: early };
  }

  async function get(m: number): Promise<LatencyBlock> {
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    for (let i = 0; i < m && sample.length; i++) {
      const id = sample[Math.floor(Math.random() * sample.length)]!;
      const t0 = performance.now();
      try {
        const task = await server.experimental.tasks.getTask(id);
        if (task.taskId !== id) throw new Error(`tasks/get answered ${task.taskId} for ${id}`);
        latencies.push(round(performance.now() - t0));
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
    return { latencies, errors, firstError };
  }

  async function list(cursor: string | undefined, maxPages: number): Promise<ListChunk> {
    let pages = 0;
    let tasks = 0;
    const started = performance.now();
    try {
      do {
        // Params without an `undefined` cursor: over the in-memory transport the object arrives as it
        // is sent, and ext-tasks' binding refuses a value JSON cannot carry (-32603).
        const page = await server.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, ListTasksResultSchema);
        pages++;
        tasks += page.tasks.length;
        cursor = page.nextCursor;
      } while (cursor && pages < maxPages);
    } catch (e) {
      return { ms: performance.now() - started, pages, tasks, cursor: null, errors: 1, firstError: e instanceof Error ? e.message : String(e) };
    }
    return { ms: performance.now() - started, pages, tasks, cursor: cursor ?? null, errors: 0 };
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'drive', description: 'Runs one benchmark phase against the client.', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const a = (req.params.arguments ?? {}) as { phase?: string; n?: number; ttl?: number; keep?: number; m?: number; cursor?: string; pages?: number };
    let out: unknown;
    switch (a.phase) {
      case 'reset':
        sample = [];
        out = {};
        break;
      case 'create':
        minorGc();
        out = await create(a.n ?? 1000, a.ttl ?? 3_600_000, a.keep ?? 1);
        break;
      case 'get':
        minorGc();
        out = await get(a.m ?? 1000);
        break;
      case 'list':
        out = await list(a.cursor, a.pages ?? Infinity);
        break;
      default:
        return { content: [{ type: 'text', text: `unknown phase ${a.phase}` }], isError: true };
    }
    return { content: [{ type: 'text', text: JSON.stringify(out) }] };
  });
  return server;
}
