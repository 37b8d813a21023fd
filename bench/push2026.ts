/**
 * Section 8 (`rev2026`), push — how soon a 2026-07-28 task's end is in the host: the tracker's snapshot has the
 * task's result (where the Tasks tree, the status bar and mcpTasks_getTaskResult read it).
 *
 * The bench's 2026-07-28 server (rev2026Server.ts, SDK v2, the Tasks extension declared) runs in
 * this process over the SDK's in-memory transport, so both ends share one clock. The host is the
 * product's `McpConnection` + `TaskTracker`; each task (`task` tool, `pollIntervalMs` 1000, the
 * extension's default `requestor.defaultPollIntervalMs`) is ended by the bench at a different phase
 * of the poll interval, spread evenly over one interval:
 *
 * - push: the connection's `subscriptions/listen` stream names the task (requestor/wire/taskPush.ts);
 *   measured from the moment the server hands `notifications/tasks` (the whole task, its result
 *   inline) to its transport;
 * - polling (the baseline, the spec's fallback): the same host, the server refusing
 *   `subscriptions/listen` (-32601), so the tracker reads the end on its next `tasks/get`, up to one
 *   interval later; measured from the task's end.
 *
 * Each sample is flagged when the OS preempted this process or one of its GCs overlapped the wait,
 * as in section 5 (`result-wait`); a full GC runs before each wait (outside it), both sides.
 */
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { requestorSides } from '../src/core/requestor/hostSides.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { McpConnection } from '../src/core/connection/connection.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import { ROOT, stdioServer, until } from './common.js';
import { BenchTaskBook, ListenFront, createBench2026Server } from './rev2026Server.js';
import { fullGc, gcLog } from './stats.js';

export const PUSH_POLL_INTERVAL_MS = 1000;
export type PushMode = 'push' | 'poll';

export interface PushSample {
  readonly ms: number;
  readonly preempted: boolean;
  /** The longest GC of this process that overlapped the wait (0: none). */
  readonly gcMs: number;
}

const preemptions = () => process.resourceUsage().involuntaryContextSwitches;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` tasks ended one after the other (after one unmeasured), each at its own phase of the poll interval. */
export async function pushRun(mode: PushMode, count: number): Promise<PushSample[]> {
  const book = new BenchTaskBook();
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  const served = serveStdio(() => createBench2026Server({ tasks: book }), { legacy: 'reject', transport: new ListenFront(serverT, book, mode === 'poll') });
  const connection = new McpConnection(stdioServer('bench-push', 'unused.js'), {
    sides: requestorSides(),
    variables: { env: process.env, workspaceFolder: ROOT },
    transportFactory: () => clientT,
  });
  const tracker = new TaskTracker({ connectionFor: () => connection });
  const gcs = gcLog();
  const timed: { endedAt: number; shownAt: number; preempted: boolean }[] = [];
  try {
    await connection.start();
    const state = connection.state;
    if (state.kind !== 'running' || state.protocolVersion !== '2026-07-28') throw new Error(`push host: ${JSON.stringify(state)}`);
    for (let i = -1; i < count; i++) {
      const key = await tracker.callTool(connection, { name: 'task' }, { pollIntervalMs: PUSH_POLL_INTERVAL_MS });
      const taskId = tracker.get(key)?.task?.taskId;
      if (!taskId) throw new Error(`push host: ${key} is no task (${JSON.stringify(tracker.get(key)?.phase)})`);
      if (mode === 'push') await until(() => book.listened(taskId), `the listen stream for ${taskId}`, 10_000, 1);
      // The end falls at phase i / count of the interval after the task's creation.
      const phase = Math.round((PUSH_POLL_INTERVAL_MS * Math.max(0, i)) / count);
      await sleep(20 + phase);
      await fullGc();
      let shownAt = 0;
      let preemptedAtShown = 0;
      const shown = new Promise<void>((resolve) => {
        const sub = tracker.onDidChange((e) => {
          if (e.key !== key || tracker.get(key)?.outcome?.kind !== 'result') return;
          shownAt = performance.now();
          preemptedAtShown = preemptions();
          sub.dispose();
          resolve();
        });
      });
      let endedAt = 0;
      book.onPush = (id, status, at) => {
        if (id === taskId && status === 'completed') endedAt = at;
      };
      const preemptedAtEnd = preemptions();
      const completedAt = performance.now();
      book.complete(taskId, `done ${i}`);
      if (mode === 'poll') endedAt = completedAt;
      await shown;
      if (!endedAt) throw new Error(`push host: no notification was sent for ${taskId}`);
      if (i >= 0) timed.push({ endedAt, shownAt, preempted: preemptedAtShown > preemptedAtEnd });
    }
    await new Promise((r) => setImmediate(r)); // GC entries arrive after the fact
    return timed.map(({ endedAt, shownAt, preempted }) => {
      let gcMs = 0;
      for (const g of gcs.entries) if (g.end > endedAt && g.start < shownAt) gcMs = Math.max(gcMs, g.end - g.start);
      return { ms: Math.max(0, shownAt - endedAt), preempted, gcMs };
    });
  } finally {
    gcs.stop();
    tracker.dispose();
    connection.dispose();
    await served.close();
  }
}
