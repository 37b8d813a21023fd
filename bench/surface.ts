/**
 * Section 7 (`surface`) — the surface at scale. 10,000 received and 10,000 sent tasks for one server,
 * driven through the real Tasks tree (`TasksTreeProvider`, src/ui/view/tasksTree.ts, with
 * test/helpers/vscodeClasses.ts in place of `vscode`) over the real `TaskView`, `TaskLedger` and
 * `TaskTracker`:
 * - `getChildren` of each 10,000-task group right after a status change (what VS Code asks when
 *   it redraws the group), and `getTreeItem` for every child it returned;
 * - 1,000 status changes per second (half received, half sent) for `seconds`: how often the
 *   tree tells VS Code to redraw (`onDidChangeTreeData`), in any 1-second window;
 * - persistence: 1,000 finished sent tasks with a 1 KB result each, stored through the
 *   extension's own storage adapter (src/ui/adapters/sentTasksStorage.ts): a file in the workspace storage
 *   folder (a temporary folder here), taken over from the previous release's Memento value. The
 *   CPU of one change's write (the whole process, so the file system's threads count too), and
 *   how many writes a burst of changes makes. Baseline: the previous release, the same tasks as
 *   one value of a Memento that does what VS Code's does (test/helpers/vscodeClasses.ts: every key sent to
 *   the main process as one JSON message on each update).
 */
import type { ServerRegistry } from '../src/core/connection/registry.js';
import { TaskLedger } from '../src/core/receiver/ledger.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import type { StoredSentTask } from '../src/core/requestor/trackerStore.js';
import { TaskView } from '../src/core/view/taskView.js';
import { TasksTreeProvider, type TasksNode } from '../src/ui/view/tasksTree.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentTasksStorage } from '../src/ui/adapters/sentTasksStorage.js';
import { Memento, Uri } from '../test/helpers/vscodeClasses.js';
import { maxInWindow } from './stats.js';

export const SERVER = 'big';

export interface SurfaceRun {
  /** ms of `getChildren(group)` after each status change, both groups. */
  readonly getChildrenMs: number[];
  /** ms of `getTreeItem` for every child of a group, after each status change. */
  readonly treeItemsMs: number[];
  readonly groupSizes: { sent: number; received: number };
  /** Status changes made in the burst, the tree's redraws, and the most redraws that started in any 1-second window. */
  readonly changes: number;
  readonly redraws: number;
  readonly redrawsMaxPerSecond: number;
  readonly burstCpuMs: number;
}

export interface PersistRun {
  readonly tasks: number;
  /** ms (CPU, whole process) of each write after one change: the tracker's serialisation and the file's write. */
  readonly writeMs: number[];
  /** ms (CPU, whole process) of writing the whole file (the migration; later, once per as many changes as tasks). */
  readonly rewriteMs: number;
  /** The same per change for the same tasks stored as one object value (version 2, what the previous release wrote) through the same Memento. */
  readonly objectWriteMs: number[];
  /** Changes in the burst, and the writes they caused. */
  readonly burstChanges: number;
  readonly burstWrites: number;
  /** Size of the stored file. */
  readonly storedBytes: number;
}

function storedTask(n: number, sentAt: number, resultChars: number): StoredSentTask {
  const iso = new Date(sentAt).toISOString();
  return {
    key: `${SERVER}/task-${n}`,
    serverId: SERVER,
    serverName: SERVER,
    definitionKey: `user:bench#${SERVER}`,
    toolName: `tool-${n % 17}`,
    argsSummary: `{"n":${n}}`,
    mode: 'task',
    origin: 'local',
    sentAt,
    phase: 'done',
    task: { taskId: `task-${n}`, status: 'completed', createdAt: iso, lastUpdatedAt: iso, ttl: 3_600_000, pollInterval: 1000 },
    outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'x'.repeat(resultChars) }] } },
    finishedAt: sentAt,
    polls: 3,
    resultFetches: 1,
  };
}

const noEvent = () => ({ dispose() {} });
const emptyRegistry = { connections: [], get: () => undefined, onDidChangeState: noEvent, onDidChangeConnections: noEvent } as unknown as ServerRegistry;

/** One of the tracker's records, changed the way a status update changes it (no server needed). */
function touchSent(tracker: TaskTracker, key: string, i: number): void {
  const sent = tracker._task(key)!;
  sent.record.reason = `note ${i}`;
  sent.changed();
}

export async function surfaceRun(tasks = 10_000, seconds = 3, rate = 1000): Promise<SurfaceRun> {
  const ledger = new TaskLedger({ limits: { operationsPerSecond: 1e9, operationsBurst: 1e9, maxLiveTasksPerServer: tasks } });
  const t0 = Date.now() - tasks * 1000;
  const data = { version: 2, tasks: Array.from({ length: tasks }, (_, n) => storedTask(n, t0 + n * 1000, 64)) };
  const tracker = new TaskTracker({ connectionFor: () => undefined, storage: { load: () => data, save: () => undefined }, maxStoredTasks: () => tasks, maxFinishedAgeMs: () => 0 });
  const view = new TaskView(ledger, tracker);
  const scope = ledger.forServer(SERVER, SERVER);
  const received: string[] = [];
  for (let i = 0; i < tasks; i++) received.push((await scope.createTask({ ttl: 3_600_000 }, i, { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } })).taskId);
  const sentKeys = tracker.snapshot().map((s) => s.key);
  // Each view event makes the tree redraw once (listened to before the tree, so the time is when the redraw starts).
  const fires: number[] = [];
  view.onDidChange(() => fires.push(performance.now()));
  const tree = new TasksTreeProvider(emptyRegistry, view);
  tree.setVisible(true);
  tree.refresh();
  const [server] = tree.getChildren();
  const groups = tree.getChildren(server) as TasksNode[];

  const getChildrenMs: number[] = [];
  const treeItemsMs: number[] = [];
  const status = new Map(received.map((id) => [id, 'working' as 'working' | 'input_required']));
  const flip = (id: string) => {
    const next = status.get(id) === 'working' ? 'input_required' : 'working';
    status.set(id, next);
    void scope.updateTaskStatus(id, next);
  };
  const sizes = { sent: 0, received: 0 };
  for (let k = 0; k < 20; k++) {
    flip(received[(k * 7919) % tasks]!);
    touchSent(tracker, sentKeys[(k * 104729) % tasks]!, k);
    for (const group of groups) {
      let t = performance.now();
      const children = tree.getChildren(group);
      getChildrenMs.push(performance.now() - t);
      if (group.kind === 'group') sizes[group.direction] = children.length;
      t = performance.now();
      for (const c of children) tree.getTreeItem(c);
      treeItemsMs.push(performance.now() - t);
    }
  }

  // A burst: `rate` changes per second, alternately a received and a sent task.
  fires.length = 0;
  const redraws0 = tree.refreshCount;
  const c0 = process.cpuUsage();
  const start = performance.now();
  const total = Math.round(seconds * rate);
  let done = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000));
      for (; done < due; done++) {
        if (done % 2) touchSent(tracker, sentKeys[(done * 104729) % tasks]!, done);
        else flip(received[(done * 7919) % tasks]!);
      }
      if (done >= total) resolve();
      else setTimeout(tick, 5);
    };
    tick();
  });
  await new Promise((r) => setTimeout(r, 250));
  const cpu = process.cpuUsage(c0);
  const run: SurfaceRun = {
    getChildrenMs,
    treeItemsMs,
    groupSizes: sizes,
    changes: done,
    redraws: tree.refreshCount - redraws0,
    redrawsMaxPerSecond: maxInWindow(fires, 1000),
    burstCpuMs: (cpu.user + cpu.system) / 1000,
  };
  tree.dispose();
  view.dispose();
  tracker.dispose();
  ledger.dispose();
  return run;
}

const SENT_TASKS_KEY = 'mcpTasks.sentTasks';

function cpuSince(c: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1000;
}

export async function persistRun(tasks = 1000, resultChars = 1024): Promise<PersistRun> {
  const t0 = Date.now() - tasks * 1000;
  // What the previous release stored (version 2, an object): the first write migrates it.
  const data = { version: 2, tasks: Array.from({ length: tasks }, (_, n) => storedTask(n, t0 + n * 1000, resultChars)) };
  const memento = new Memento({ [SENT_TASKS_KEY]: data, 'mcpTasks.other': { small: true } });
  const folder = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-'));
  const context = { storageUri: Uri.file(folder), workspaceState: memento } as unknown as Parameters<typeof sentTasksStorage>[0];
  const storage = sentTasksStorage(context, SENT_TASKS_KEY);
  if (!('file' in storage)) throw new Error('the storage adapter did not choose the file');
  const tracker = new TaskTracker({ connectionFor: () => undefined, storage, maxStoredTasks: () => tasks, maxFinishedAgeMs: () => 0, saveIntervalMs: 1000 });
  const keys = tracker.snapshot().map((s) => s.key);
  const c0 = process.cpuUsage();
  await tracker.flush(); // the migration: the whole file written once
  const rewriteMs = cpuSince(c0);
  const writeMs: number[] = [];
  for (let k = 0; k < 20; k++) {
    touchSent(tracker, keys[(k * 7919) % tasks]!, k);
    const c = process.cpuUsage();
    // Resolves once the Memento has sent its message (its own serialisation included).
    await tracker.flush();
    writeMs.push(cpuSince(c));
  }
  const storedBytes = statSync(storage.file as string).size;
  if (memento.get(SENT_TASKS_KEY) !== undefined) throw new Error('the Memento value was not taken over');
  // Baseline: the same tasks as one object value through the same Memento (the tracker's own
  // serialisation of the changed task left out, so this is a lower bound of the old path).
  const objectMemento = new Memento({ 'mcpTasks.other': { small: true } });
  const objectValue = data;
  const objectWriteMs: number[] = [];
  for (let k = 0; k < 20; k++) {
    const c = process.cpuUsage();
    await objectMemento.update(SENT_TASKS_KEY, objectValue);
    objectWriteMs.push(cpuSince(c));
  }
  // A burst of changes (one every ~5 ms, up to 200) for 1 s of wall time — bounded by time, not
  // by count, so a loaded machine's slow timers do not stretch it: the saver writes at most once
  // per interval, so at most 2 writes (one within the second, one for what came after it).
  const writes0 = tracker.storageWrites;
  const burstEnd = performance.now() + 1000;
  let burstChanges = 0;
  for (let k = 0; k < 200 && performance.now() < burstEnd; k++) {
    touchSent(tracker, keys[(k * 104729) % tasks]!, 1000 + k);
    burstChanges++;
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, 1100));
  const burstWrites = tracker.storageWrites - writes0;
  tracker.dispose();
  rmSync(folder, { recursive: true, force: true });
  return { tasks, writeMs, rewriteMs, objectWriteMs, burstChanges, burstWrites, storedBytes };
}
