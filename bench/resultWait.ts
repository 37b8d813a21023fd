/**
 * Section 5 (`result-wait`) — how soon a server waiting on `tasks/result` for one of our receiver tasks gets its
 * answer once the task ends. A real SDK `Server` (the requestor) sends a task-augmented
 * `sampling/createMessage`, then `tasks/result` for the task at once (it blocks, R-RESULT-1), and
 * some time later the task ends in one of three ways:
 *
 * - completed: the sampler answers (the work is released by the bench),
 * - cancelled: the server sends `tasks/cancel`,
 * - expired:   nobody answers and the task outlives its ttl.
 *
 * Measured: time from the moment the task ends (sampler released / `tasks/cancel` sent / ttl
 * elapsed) to the moment the server's `tasks/result` settles, on one clock (everything runs in
 * this process over the SDK's in-memory transport). (a) this project's client (`McpConnection` +
 * `TaskLedger`: `tasks/result` wakes on the task's terminal event) against (b) a bare SDK `Client`
 * with the SDK's `InMemoryTaskStore`, whose `tasks/result` handler re-reads the store every
 * `pollInterval` (1 s here, the extension's default for both).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hostSides } from '../src/core/requestor/hostSides.js';
import { CreateTaskResultSchema, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateMessageRequestSchema, ErrorCode, McpError, type CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpConnection } from '../src/core/connection/connection.js';
import { HOST_CAPABILITIES } from '../src/core/connection/hostClient.js';
import { TaskLedger } from '../src/core/receiver/ledger.js';
import { ROOT, sampleAnswer, stdioServer } from './common.js';
import { fullGc, gcLog } from './stats.js';

export type WaitEnd = 'completed' | 'cancelled' | 'expired';

/** `pollInterval` of both hosts' tasks: the extension's default (mcpTasks.receiver.pollIntervalMs). */
export const WAIT_POLL_INTERVAL_MS = 1000;
/** Shortest ttl of the tasks that are left to expire (each adds its phase, see below). */
const EXPIRY_TTL_MS = 200;

const AnyResult = z.object({}).passthrough();

/** A sampler whose answers are held until the bench releases them. */
class HeldSampler {
  private readonly held = new Map<string, () => void>();
  private next?: (key: string) => void;

  /** Resolves with the request's first message text once the bench calls `release(text)`. */
  hold(params: { messages: { content: unknown }[] }): Promise<CreateMessageResult> {
    const key = JSON.stringify(params.messages[0]?.content);
    return new Promise((resolve) => {
      this.held.set(key, () => resolve(sampleAnswer(params as never)));
      this.next?.(key);
    });
  }

  waitHeld(key: string): Promise<void> {
    if (this.held.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      this.next = (k) => k === key && resolve();
    });
  }

  release(key: string): void {
    const r = this.held.get(key);
    this.held.delete(key);
    r?.();
  }
}

interface WaitHost {
  readonly server: Server;
  readonly sampler: HeldSampler;
  close(): Promise<void>;
}

function driverServer(): Server {
  return new Server({ name: 'bench-result-wait', version: '1.0.0' }, { capabilities: {} });
}

async function projectWaitHost(): Promise<WaitHost> {
  const sampler = new HeldSampler();
  const ledger = new TaskLedger({
    limits: { pollIntervalMs: WAIT_POLL_INTERVAL_MS, operationsPerSecond: 100_000, operationsBurst: 100_000, maxLiveTasksPerServer: 1000 },
  });
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  const server = driverServer();
  await server.connect(serverT);
  const connection = new McpConnection(stdioServer('bench-wait', 'unused.js'), {
    sides: hostSides(ledger, {
      sampling: (params) => sampler.hold(params),
      elicitation: async () => {
        throw new McpError(ErrorCode.InvalidRequest, 'no elicitation in the benchmark');
      },
    }),
    variables: { env: process.env, workspaceFolder: ROOT },
    transportFactory: () => clientT,
  });
  await connection.start();
  return {
    server,
    sampler,
    async close() {
      connection.dispose();
      ledger.dispose();
      await server.close();
    },
  };
}

async function sdkWaitHost(): Promise<WaitHost> {
  const sampler = new HeldSampler();
  const store = new InMemoryTaskStore();
  const client = new Client({ name: 'bare-sdk-client', version: '1.0.0' }, { capabilities: HOST_CAPABILITIES, taskStore: store });
  // The SDK's documented pattern: create the task, answer with it, do the work in the background.
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    const { task, ...params } = request.params;
    if (!task || !extra.taskStore) return sampleAnswer(params);
    const created = await extra.taskStore.createTask({ ttl: task.ttl ?? null, pollInterval: WAIT_POLL_INTERVAL_MS });
    void sampler
      .hold(params)
      .then((result) => extra.taskStore!.storeTaskResult(created.taskId, 'completed', result))
      .catch(() => undefined); // the task was cancelled or expired meanwhile
    return { task: created };
  });
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  const server = driverServer();
  await server.connect(serverT);
  await client.connect(clientT);
  return {
    server,
    sampler,
    async close() {
      await client.close();
      store.cleanup();
      await server.close();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One measured task: ms from its end to the server's `tasks/result` settling, and whether the OS preempted this process meanwhile. */
export interface WaitSample {
  readonly ms: number;
  /** The process was switched out involuntarily (another process took the CPU) between the end and the answer. */
  readonly preempted: boolean;
  /** A garbage collection of this process overlapped the wait from the end to the answer (its longest pause, ms; 0: none). */
  readonly gcMs: number;
}

/** Involuntary context switches of this process so far (getrusage `ru_nivcsw`). */
const preemptions = () => process.resourceUsage().involuntaryContextSwitches;

/**
 * `count` tasks ended the `end` way, one after the other; returns, per task, the ms from its end
 * to the server's `tasks/result` settling. The end falls at a different phase of the host's poll
 * interval for each task (spread evenly over one interval), so the SDK's figures show its whole
 * range, not one lucky phase.
 *
 * Each host first ends one task the same way unmeasured (both sides alike): the first task of a
 * freshly connected host took 3–8 ms (cold per-connection paths, and the previous host's garbage
 * and compiler threads competing for the 2 cores), every later one well under 1 ms.
 */
export async function resultWaitRun(side: 'project' | 'sdk', end: WaitEnd, count: number): Promise<WaitSample[]> {
  const gcs = gcLog();
  try {
    const timed = await timedWaits(side, end, count);
    await new Promise((r) => setImmediate(r)); // GC entries arrive after the fact
    return timed.map(({ endedAt, settledAt, preempted }) => {
      let gcMs = 0;
      for (const g of gcs.entries) if (g.end > endedAt && g.start < settledAt) gcMs = Math.max(gcMs, g.end - g.start);
      return { ms: Math.max(0, settledAt - endedAt), preempted, gcMs };
    });
  } finally {
    gcs.stop();
  }
}

async function timedWaits(side: 'project' | 'sdk', end: WaitEnd, count: number): Promise<{ endedAt: number; settledAt: number; preempted: boolean }[]> {
  const host = side === 'project' ? await projectWaitHost() : await sdkWaitHost();
  const out: { endedAt: number; settledAt: number; preempted: boolean }[] = [];
  try {
    for (let i = -1; i < count; i++) {
      const key = `wait ${end} ${i}`;
      // Phase within the host's poll interval at which the task ends: i / count of one interval (the warm-up task: 0).
      const phase = Math.round((WAIT_POLL_INTERVAL_MS * Math.max(0, i)) / count);
      const ttl = end === 'expired' ? EXPIRY_TTL_MS + phase : 600_000;
      const created = await host.server.request(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: key } }], maxTokens: 10, task: { ttl } },
        },
        CreateTaskResultSchema,
      );
      const createdAt = performance.now();
      const taskId = created.task.taskId;
      await host.sampler.waitHeld(JSON.stringify({ type: 'text', text: key }));
      // A full GC now, before the wait (both sides): the garbage of earlier rows and tasks is not
      // collected inside a sample's few milliseconds.
      await fullGc();
      let settledAt = 0;
      let preemptedAtSettle = 0;
      const settle = () => {
        settledAt = performance.now();
        preemptedAtSettle = preemptions();
      };
      const waiting = host.server.request({ method: 'tasks/result', params: { taskId } }, AnyResult, { timeout: 60_000 }).then(settle, settle);
      let preemptedAtEnd = preemptions();
      let endedAt: number;
      if (end === 'expired') {
        endedAt = createdAt + ttl;
      } else {
        await sleep(50 + phase);
        preemptedAtEnd = preemptions();
        endedAt = performance.now();
        if (end === 'completed') host.sampler.release(JSON.stringify({ type: 'text', text: key }));
        else void host.server.request({ method: 'tasks/cancel', params: { taskId } }, AnyResult).catch(() => undefined);
      }
      await waiting;
      if (i >= 0) out.push({ endedAt, settledAt, preempted: preemptedAtSettle > preemptedAtEnd });
      host.sampler.release(JSON.stringify({ type: 'text', text: key })); // a cancelled/expired task's work ends too
    }
  } finally {
    await host.close();
  }
  return out;
}
