/**
 * Section 1 (`receiver`) — the receiver. A real SDK server sends N task-augmented `sampling/createMessage`
 * requests to (a) this project's client (`McpConnection` + `TaskLedger`, on SDK v2), (b) a bare
 * SDK v1 `Client` with the SDK's `InMemoryTaskStore` and an equivalent handler (the reference the
 * goals were set against: SDK v2 has no task runtime of its own) and (c) a bare SDK v2 `Client`
 * with `@modelcontextprotocol/ext-tasks`'s `bindTaskReceiver` (what a 2026 host could use instead
 * of the project's receiver), over the SDK's in-memory linked transport and over real stdio (the
 * server in a child process).
 */
import { Client as ClientV2, type ClientCapabilities } from '@modelcontextprotocol/client';
import { hostSides } from '../src/core/requestor/hostSides.js';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { bindTaskReceiver } from '@modelcontextprotocol/ext-tasks/receiver';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, ProtocolError as McpError } from '../src/core/base/errors.js';
import { McpConnection } from '../src/core/connection/connection.js';
import { HOST_CAPABILITIES } from '../src/core/connection/hostClient.js';
import { TaskLedger, type LedgerLimits } from '../src/core/receiver/ledger.js';
import { RECEIVER_SERVER_JS, ROOT, childEnv, sampleAnswer, stdioServer, toolJson, until } from './common.js';
import { createReceiverDriver, type CreateBlock, type LatencyBlock, type ListChunk } from './receiverServer.js';
import { fullGc, gcLog, log, median } from './stats.js';

export type TransportKind = 'in-memory' | 'stdio';
/** The three receivers: the project's, the bare SDK v1 client's, ext-tasks' binding on a bare SDK v2 client. */
export type ReceiverSide = 'project' | 'sdk' | 'binding';
export const RECEIVER_SIDES: readonly ReceiverSide[] = ['project', 'sdk', 'binding'];

/**
 * Limits raised for the run (the defaults guard a real window against a flood): live tasks,
 * operation rate and ttl. Everything else, the `tasks/list` page size (50) included, stays at
 * the extension's defaults.
 */
export function benchLimits(n: number): Partial<LedgerLimits> {
  return {
    maxLiveTasksPerServer: Math.max(n, 32),
    operationsPerSecond: 100_000,
    operationsBurst: 100_000,
    maxTtlMs: 3_600_000,
    defaultTtlMs: 3_600_000,
  };
}

/**
 * The two task stores alone, no transport, no protocol: N tasks created straight in a ledger
 * scope and in an `InMemoryTaskStore`, then one walk of `listTasks` over all of them at the same
 * page size (10, the SDK's fixed size). Returns the walk times in ms.
 */
export async function storeListWalk(n: number, side: 'project' | 'sdk'): Promise<{ ms: number; pages: number }> {
  const request = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
  const walk = async (list: (cursor?: string) => Promise<{ tasks: unknown[]; nextCursor?: string }>) => {
    let cursor: string | undefined;
    let pages = 0;
    let seen = 0;
    const t0 = performance.now();
    do {
      const page = await list(cursor);
      pages++;
      seen += page.tasks.length;
      cursor = page.nextCursor;
    } while (cursor);
    const ms = performance.now() - t0;
    if (seen !== n) throw new Error(`${side} store walk saw ${seen} of ${n} tasks`);
    return { ms, pages };
  };
  if (side === 'project') {
    const ledger = new TaskLedger({ limits: { ...benchLimits(n), listPageSize: 10 } });
    const scope = ledger.forServer('store-walk', 'store-walk');
    for (let i = 0; i < n; i++) await scope.createTask({ ttl: 3_600_000 }, i, request);
    try {
      return await walk((c) => scope.listTasks(c));
    } finally {
      ledger.dispose();
    }
  }
  const store = new InMemoryTaskStore();
  for (let i = 0; i < n; i++) await store.createTask({ ttl: 3_600_000 }, i, request);
  try {
    return await walk((c) => store.listTasks(c));
  } finally {
    store.cleanup();
  }
}

interface Host {
  drive<T>(args: Record<string, unknown>): Promise<T>;
  /** Tasks that reached a terminal status so far. */
  finished(): number;
  close(): Promise<void>;
}

async function projectHost(kind: TransportKind, n: number): Promise<Host> {
  const ledger = new TaskLedger({ limits: benchLimits(n) });
  let finished = 0;
  const sub = ledger.onDidChange((c) => {
    if (c.kind === 'updated' && c.statusChanged && (c.task.status === 'completed' || c.task.status === 'failed')) finished++;
  });
  let server: ReturnType<typeof createReceiverDriver> | undefined;
  let transportFactory: ConstructorParameters<typeof McpConnection>[1]['transportFactory'];
  if (kind === 'in-memory') {
    const [clientT, serverT] = InMemoryTransport.createLinkedPair();
    server = createReceiverDriver();
    await server.connect(serverT);
    transportFactory = () => clientT;
  }
  const connection = new McpConnection(stdioServer('bench', RECEIVER_SERVER_JS, ['--expose-gc']), {
    sides: hostSides(ledger, {
      sampling: async (params) => sampleAnswer(params as Parameters<typeof sampleAnswer>[0]),
      elicitation: async () => {
        throw new McpError(ErrorCode.InvalidRequest, 'no elicitation in the benchmark');
      },
    }),
    variables: { env: process.env, workspaceFolder: ROOT },
    transportFactory,
  });
  await connection.start();
  return {
    async drive<T>(args: Record<string, unknown>) {
      return toolJson<T>(await connection.client.callTool({ name: 'drive', arguments: args }, { timeout: 600_000 }));
    },
    finished: () => finished,
    async close() {
      sub.dispose();
      connection.dispose();
      ledger.dispose();
      await server?.close();
    },
  };
}

async function sdkHost(kind: TransportKind): Promise<Host> {
  const store = new InMemoryTaskStore();
  const client = new Client({ name: 'bare-sdk-client', version: '1.0.0' }, { capabilities: HOST_CAPABILITIES, taskStore: store });
  let finished = 0;
  // The SDK's documented pattern: create the task from the request's task store, answer with it,
  // run the work in the background and store its result.
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    const { task, ...params } = request.params;
    if (task && extra.taskStore) {
      const created = await extra.taskStore.createTask({ ttl: task.ttl ?? null, pollInterval: 1000 });
      void (async () => {
        const result = await (async () => sampleAnswer(params))();
        await extra.taskStore!.storeTaskResult(created.taskId, 'completed', result);
        finished++;
      })();
      return { task: created };
    }
    return sampleAnswer(params);
  });
  let server: ReturnType<typeof createReceiverDriver> | undefined;
  if (kind === 'in-memory') {
    const [clientT, serverT] = InMemoryTransport.createLinkedPair();
    server = createReceiverDriver();
    await server.connect(serverT);
    await client.connect(clientT);
  } else {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--expose-gc', RECEIVER_SERVER_JS], env: childEnv(), stderr: 'pipe' }));
  }
  return {
    async drive<T>(args: Record<string, unknown>) {
      return toolJson<T>(await client.callTool({ name: 'drive', arguments: args }, CallToolResultSchema, { timeout: 600_000 }));
    },
    finished: () => finished,
    async close() {
      await client.close();
      store.cleanup();
      await server?.close();
    },
  };
}

/** What the binding declares (its `capabilities` with sampling only), beside `sampling` itself. */
const BINDING_CAPABILITIES: ClientCapabilities = { sampling: {}, tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } } };

/**
 * `@modelcontextprotocol/ext-tasks` 0.2.2's 2025-11-25 receiver on a bare SDK v2 `Client`, the same
 * sampler: the library owns the tasks (ttl, pollInterval 1000 ms like the other two; `maxTasks`
 * raised to N like the project's live-task limit — at its default of 1,000 it evicts finished tasks
 * and a later `tasks/get` of one fails; pages of 50 like the project's).
 */
async function bindingHost(kind: TransportKind, n: number): Promise<Host> {
  const client = new ClientV2({ name: 'ext-tasks-receiver', version: '0.2.2' }, { capabilities: BINDING_CAPABILITIES });
  let finished = 0;
  const binding = bindTaskReceiver(client, {
    methods: { 'sampling/createMessage': true },
    sampling: async (request) => sampleAnswer(request.params as never) as never,
    ttlMs: 3_600_000,
    pollIntervalMs: 1000,
    maxTasks: Math.max(n, 1000),
    // The extension's default page size (the library's is 100): the walk compares the stores, not the page count.
    pageSize: 50,
  });
  // The binding tells a task's end only by its status notification: count them as they are sent.
  const notification = client.notification.bind(client);
  client.notification = (n, options) => {
    const status = (n.params as { status?: string } | undefined)?.status;
    if (n.method === 'notifications/tasks/status' && (status === 'completed' || status === 'failed')) finished++;
    return notification(n, options);
  };
  let server: ReturnType<typeof createReceiverDriver> | undefined;
  if (kind === 'in-memory') {
    const [clientT, serverT] = InMemoryTransport.createLinkedPair();
    server = createReceiverDriver();
    await server.connect(serverT);
    await client.connect(clientT);
  } else {
    await client.connect(new StdioClientTransportV2({ command: process.execPath, args: ['--expose-gc', RECEIVER_SERVER_JS], env: childEnv(), stderr: 'pipe' }));
  }
  return {
    async drive<T>(args: Record<string, unknown>) {
      return toolJson<T>(await client.callTool({ name: 'drive', arguments: args }, { timeout: 600_000 }));
    },
    finished: () => finished,
    async close() {
      binding.close();
      await client.close();
      await server?.close();
    },
  };
}

function hostOf(side: ReceiverSide, kind: TransportKind, n: number): Promise<Host> {
  return side === 'project' ? projectHost(kind, n) : side === 'sdk' ? sdkHost(kind) : bindingHost(kind, n);
}

function cpuMs(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/** One side's figures of one interleaved round. */
export interface SideRound {
  readonly createLatencies: number[];
  readonly getLatencies: number[];
  /** The fastest of the round's list walks (ms, measured by the server), and every walk's. */
  readonly listMs: number;
  readonly listWalksMs: readonly number[];
  readonly listPages: number;
  /** CPU (ms) of this process while this side's blocks ran: the host's, plus the in-memory server's. */
  readonly cpuCreate: number;
  readonly cpuGet: number;
  /** This process's CPU over the side's fastest-CPU list walk (host; in memory, the server's too). */
  readonly cpuList: number;
  readonly statusNotifications: number;
  /** GCs that this process ran by itself (not the bench's forced ones) while this side's create / get blocks ran. */
  readonly gcCreate: number;
  readonly gcGet: number;
}

export type ReceiverRound = Record<ReceiverSide, SideRound>;

export interface ReceiverOptions {
  readonly n: number;
  readonly gets: number;
  /** Requests per create block (sides alternate block by block). */
  readonly block?: number;
  /** `tasks/get` per get block. */
  readonly getBlock?: number;
  /** `tasks/list` pages per list chunk. */
  readonly listChunk?: number;
  /**
   * Creations per side at the start of the round whose latencies are not counted (whole blocks;
   * default 0; bench.ts passes BENCH_WARM, 1,000). Every round starts fresh hosts and, over stdio, fresh server
   * processes whose code V8 has not compiled yet: their first ~1,000 requests ran slower and
   * noisier on both sides and made up most of each round's slowest 1 % (stdio CreateTaskResult
   * p99 ~0.5 ms with them, ~0.33 ms without them; p50 unchanged).
   */
  readonly warm?: number;
  /**
   * Walks of `tasks/list` per side over all N tasks (default 1; bench.ts passes BENCH_LIST_WALKS, 3).
   * A walk is fixed work (it reads the same tasks each time) plus whatever the machine adds: the
   * round's first walk is the fresh hosts' and servers' first `tasks/list` (its code compiled on the
   * first pages: the project's first stdio walk took 1.5 s where its next took 0.11 s), another process
   * taking the CPU between the pipes' ends, a GC. That addition is never negative and weighs on the
   * project's short walk (200 pages) far more than on the SDK's long one (1,000 pages, each a linear
   * search), so the ratio of one walk per round swung 0.088×–0.132× from run to run; the least of a
   * few walks is the walk's own cost. Both the wall time and this process's CPU are kept that way (the
   * row's goal is on the CPU: bench.ts says why).
   */
  readonly listWalks?: number;
  /** Which side's block goes first in the round's first block (rotate this from round to round). */
  readonly firstSide?: number;
}

/**
 * A young-generation GC (needs `--expose-gc`), run before every block of either side: each block
 * then starts with an empty nursery, so the scavenges inside a block are caused by that side's own
 * allocations, not by garbage the other side left in the previous block. Without it, p99 (the
 * 100th-slowest of 10,000 requests) sat right at the number of GC-hit requests and swung with
 * which side happened to trigger them. Old-generation GC is left as it comes (a full
 * GC per block would cost seconds per round). The first request of each block (the first after
 * the switch of sides and this GC; 2× the median, for both sides alike) is not counted in the
 * latencies, so the 1 % of requests that open a block do not decide p99.
 */
function minorGc(): void {
  (globalThis as { gc?: (o?: { type: 'minor' | 'major' }) => void }).gc?.({ type: 'minor' });
}

/**
 * One round: the three hosts connected side by side (each with its own server), then every phase
 * in blocks whose order rotates — project, SDK, binding; SDK, binding, project; … — so all meet the
 * same machine noise and each side takes each place in the order equally often.
 */
export async function receiverRound(kind: TransportKind, o: ReceiverOptions): Promise<ReceiverRound> {
  const { n, gets } = o;
  const block = o.block ?? envBlock();
  const getBlock = o.getBlock ?? envBlock();
  const listChunk = o.listChunk ?? 50;
  const hosts = {} as Record<ReceiverSide, Host>;
  for (const side of RECEIVER_SIDES) hosts[side] = await hostOf(side, kind, n);
  const fresh = () => ({ createLatencies: [] as number[], getLatencies: [] as number[], listMs: 0, listWalksMs: [] as number[], listPages: 0, listTasks: 0, cpuCreate: 0, cpuGet: 0, cpuList: 0, statusNotifications: 0, gcCreate: 0, gcGet: 0 });
  const acc = { project: fresh(), sdk: fresh(), binding: fresh() };
  // Which side's blocks each GC fell in: p99 is about the requests a GC pauses (see minorGc).
  const windows: { side: ReceiverSide; phase: 'gcCreate' | 'gcGet'; start: number; end: number }[] = [];
  const gcs = gcLog();
  const first = o.firstSide ?? 0;
  const order = (i: number): ReceiverSide[] => RECEIVER_SIDES.map((_, k) => RECEIVER_SIDES[(i + first + k) % RECEIVER_SIDES.length]!);
  try {
    const keep = Math.min(1, 1000 / n);
    // The round's first `warm` creations per side are its warm-up (see ReceiverOptions.warm).
    // At most half the round, so that a short run (BENCH_N) still counts something.
    const warmBlocks = Math.ceil(Math.min(o.warm ?? 0, Math.floor(n / 2)) / block);
    let i = 0;
    for (let done = 0; done < n; done += block, i++) {
      const size = Math.min(block, n - done);
      for (const side of order(i)) {
        minorGc();
        const c0 = process.cpuUsage();
        const w0 = performance.now();
        const r = await hosts[side].drive<CreateBlock>({ phase: 'create', n: size, ttl: 3_600_000, keep });
        if (r.errors) throw new Error(`${side}/${kind}: ${r.errors} create errors, first: ${r.firstError}`);
        await until(() => hosts[side].finished() >= done + size, `${side}/${kind}: tasks finished (${hosts[side].finished()} of ${done + size})`);
        acc[side].cpuCreate += cpuMs(c0);
        windows.push({ side, phase: 'gcCreate', start: w0, end: performance.now() });
        if (i >= warmBlocks) acc[side].createLatencies.push(...r.latencies.slice(1)); // see minorGc: the block's first request is not counted
        acc[side].statusNotifications += r.statusNotifications;
      }
    }
    for (let done = 0; done < gets; done += getBlock, i++) {
      for (const side of order(i)) {
        minorGc();
        const c0 = process.cpuUsage();
        const w0 = performance.now();
        const r = await hosts[side].drive<LatencyBlock>({ phase: 'get', m: Math.min(getBlock, gets - done) });
        if (r.errors) throw new Error(`${side}/${kind}: ${r.errors} tasks/get errors, first: ${r.firstError}`);
        acc[side].cpuGet += cpuMs(c0);
        windows.push({ side, phase: 'gcGet', start: w0, end: performance.now() });
        acc[side].getLatencies.push(...r.latencies.slice(1));
      }
    }
    // The list walk, `listWalks` times per side (read-only: every walk reads the same tasks), each
    // side's pages in chunks whose order rotates; each side's figure is its fastest walk (see ReceiverOptions.listWalks).
    const walks = o.listWalks ?? 1;
    const walkMs: Record<ReceiverSide, number[]> = { project: [], sdk: [], binding: [] };
    const walkCpu: Record<ReceiverSide, number[]> = { project: [], sdk: [], binding: [] };
    for (let w = 0; w < walks; w++) {
      const cursors: Record<ReceiverSide, string | undefined | null> = { project: undefined, sdk: undefined, binding: undefined };
      const walk = { project: fresh(), sdk: fresh(), binding: fresh() };
      while (RECEIVER_SIDES.some((side) => cursors[side] !== null)) {
        for (const side of order(i++)) {
          const cursor = cursors[side];
          if (cursor === null) continue;
          const c0 = process.cpuUsage();
          const r = await hosts[side].drive<ListChunk>({ phase: 'list', cursor, pages: listChunk });
          if (r.errors) throw new Error(`${side}/${kind}: tasks/list failed: ${r.firstError}`);
          walk[side].cpuList += cpuMs(c0);
          walk[side].listMs += r.ms;
          walk[side].listPages += r.pages;
          walk[side].listTasks += r.tasks;
          cursors[side] = r.cursor;
        }
      }
      for (const side of RECEIVER_SIDES) {
        if (walk[side].listTasks !== n) throw new Error(`${side}/${kind}: the list walk saw ${walk[side].listTasks} of ${n} tasks`);
        walkMs[side].push(walk[side].listMs);
        walkCpu[side].push(walk[side].cpuList);
        acc[side].listPages = walk[side].listPages;
      }
    }
    for (const side of RECEIVER_SIDES) {
      acc[side].listWalksMs = walkMs[side];
      acc[side].listMs = Math.min(...walkMs[side]);
      acc[side].cpuList = Math.min(...walkCpu[side]);
    }
    await new Promise((r) => setImmediate(r)); // GC entries arrive after the fact
    for (const g of gcs.entries) {
      const w = windows.find((x) => g.start >= x.start && g.start < x.end);
      if (w) acc[w.side][w.phase]++;
    }
    return acc;
  } finally {
    gcs.stop();
    for (const side of RECEIVER_SIDES) await hosts[side].close();
  }
}

/**
 * Retained heap per finished task (payload included) of one side alone, the server in a child
 * process so that only the host is in this heap.
 *
 * A pass ends once the closed host's tasks are gone from the heap (at most 10 s): the project's
 * connection lets its server process go in the background, and until that process and its pipes
 * are closed their handles keep the transport's listeners, and through them the tasks, reachable.
 * Without the wait the next pass counted their release as its own: after the project's pass, the
 * bare SDK's figure came out below its payload (91 B with it, 1.26 KB alone).
 */
export async function heapPass(side: ReceiverSide, n: number): Promise<number> {
  const host = await hostOf(side, 'stdio', n);
  let h0 = 0;
  let h1 = 0;
  try {
    await fullGc();
    h0 = process.memoryUsage().heapUsed;
    const r = await host.drive<CreateBlock>({ phase: 'create', n, ttl: 3_600_000, keep: 0 });
    if (r.errors) throw new Error(`${side}: ${r.errors} create errors, first: ${r.firstError}`);
    await until(() => host.finished() >= n, `${side}: all ${n} tasks finished (${host.finished()})`);
    await fullGc();
    h1 = process.memoryUsage().heapUsed;
    return (h1 - h0) / n;
  } finally {
    await host.close();
    const released = h0 + (h1 - h0) / 5;
    for (let waited = 0; h1 > h0 && waited < 10_000; waited += 100) {
      await fullGc();
      if (process.memoryUsage().heapUsed <= released) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

let held: unknown[] | undefined;

/**
 * Heap taken by N payloads alone (the sampler's answers held in an array), per payload: what
 * "beyond its payload" subtracts. (Module-level holder: a local of an async function can stay
 * alive in its suspended frame and spoil the next measurement.)
 */
export async function payloadHeapPerTask(n: number): Promise<number> {
  held = undefined;
  await fullGc();
  const h0 = process.memoryUsage().heapUsed;
  held = new Array<unknown>(n);
  for (let i = 0; i < n; i++) held[i] = sampleAnswer({ messages: [{ role: 'user', content: { type: 'text', text: `question ${i}` } }], maxTokens: 64 });
  await fullGc();
  const per = (process.memoryUsage().heapUsed - h0) / n;
  held = undefined;
  return per;
}

export { log, median };

/** @internal For profiling scripts. */
export const projectHostForProf = projectHost;
/** @internal For profiling scripts. */
export const sdkHostForProf = sdkHost;

/** Requests per side's block (BENCH_BLOCK, default 100). */
function envBlock(): number {
  const n = Number(process.env.BENCH_BLOCK ?? 100);
  return Number.isInteger(n) && n > 1 ? n : 100;
}
