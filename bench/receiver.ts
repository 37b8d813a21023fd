/**
 * Row 1 — the receiver. A real SDK server sends N task-augmented `sampling/createMessage`
 * requests to (a) this project's client (`McpConnection` + `TaskLedger`) and (b) a bare SDK
 * `Client` with the SDK's `InMemoryTaskStore` and an equivalent handler, over the SDK's in-memory
 * linked transport and over real stdio (the server in a child process).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateMessageRequestSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { McpConnection } from '../src/core/connection.js';
import { HOST_CAPABILITIES } from '../src/core/hostClient.js';
import { TaskLedger, type LedgerLimits } from '../src/core/ledger.js';
import { RECEIVER_SERVER_JS, ROOT, childEnv, sampleAnswer, stdioServer, toolJson, until } from './common.js';
import { createReceiverDriver, type LatencySummary, type ListSummary } from './receiverServer.js';
import { fullGc, log, median } from './stats.js';

export type TransportKind = 'in-memory' | 'stdio';

/** Limits raised for the run (the defaults guard a real window against a flood). */
export function benchLimits(n: number): Partial<LedgerLimits> {
  return {
    maxLiveTasksPerServer: Math.max(n, 32),
    operationsPerSecond: 100_000,
    operationsBurst: 100_000,
    maxTtlMs: 3_600_000,
    defaultTtlMs: 3_600_000,
    // The SDK's InMemoryTaskStore pages by 10 (fixed); the same page size keeps the number of
    // round trips of the list walk equal on both sides.
    listPageSize: 10,
  };
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
  const connection = new McpConnection(stdioServer('bench', RECEIVER_SERVER_JS), {
    ledger,
    responders: {
      sampling: async (params) => sampleAnswer(params),
      elicitation: async () => {
        throw new McpError(ErrorCode.InvalidRequest, 'no elicitation in the benchmark');
      },
    },
    variables: { env: process.env, workspaceFolder: ROOT },
    transportFactory,
  });
  await connection.start();
  return {
    async drive<T>(args: Record<string, unknown>) {
      return toolJson<T>(await connection.client.callTool({ name: 'drive', arguments: args }, CallToolResultSchema, { timeout: 600_000 }));
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
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [RECEIVER_SERVER_JS], env: childEnv(), stderr: 'pipe' }));
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

export interface ReceiverRound {
  readonly create: LatencySummary & { statusNotifications: number };
  readonly get: LatencySummary;
  readonly list: ListSummary;
  /** Retained heap per finished task, payload included. */
  readonly heapPerTask: number;
}

/** One round on one side: connect, create N tasks, measure heap, random gets, list walk, close. */
export async function receiverRound(side: 'project' | 'sdk', kind: TransportKind, n: number, gets: number, measureHeap = true): Promise<ReceiverRound> {
  const host = side === 'project' ? await projectHost(kind, n) : await sdkHost(kind);
  try {
    let h0 = 0;
    if (measureHeap) {
      await fullGc();
      h0 = process.memoryUsage().heapUsed;
    }
    const create = await host.drive<ReceiverRound['create']>({ phase: 'create', n, ttl: 3_600_000 });
    if (create.errors) throw new Error(`${side}/${kind}: ${create.errors} create errors, first: ${create.firstError}`);
    await until(() => host.finished() >= n, `${side}/${kind}: all ${n} tasks finished (${host.finished()})`);
    let heapPerTask = NaN;
    if (measureHeap) {
      await fullGc();
      heapPerTask = (process.memoryUsage().heapUsed - h0) / n;
    }
    const get = await host.drive<LatencySummary>({ phase: 'get', m: gets });
    if (get.errors) throw new Error(`${side}/${kind}: ${get.errors} tasks/get errors, first: ${get.firstError}`);
    const list = await host.drive<ListSummary>({ phase: 'list' });
    if (list.errors || list.tasks !== n) throw new Error(`${side}/${kind}: list walk saw ${list.tasks} of ${n} tasks (${list.firstError ?? 'no error'})`);
    return { create, get, list, heapPerTask };
  } finally {
    await host.close();
  }
}

/**
 * Heap taken by N payloads alone (the sampler's answers held in an array), per payload: what
 * "beyond its payload" subtracts.
 */
export async function payloadHeapPerTask(n: number): Promise<number> {
  await fullGc();
  const h0 = process.memoryUsage().heapUsed;
  const held = new Array<unknown>(n);
  for (let i = 0; i < n; i++) held[i] = sampleAnswer({ messages: [{ role: 'user', content: { type: 'text', text: `question ${i}` } }], maxTokens: 64 });
  await fullGc();
  const per = (process.memoryUsage().heapUsed - h0) / n;
  if (held.length !== n) throw new Error('unreachable');
  return per;
}

export function medianOf(rounds: readonly ReceiverRound[], pick: (r: ReceiverRound) => number): number {
  return median(rounds.map(pick));
}

export { log };
