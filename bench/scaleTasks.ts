/**
 * Section 10 (`scale`), its task rows (bench/README.md):
 * - **scale 1,000 concurrent tasks**: 1,000 tool calls as tasks spread over 20 stdio servers (the
 *   bench's SDK v1 requestor server, tasks of `taskMs` with `pollInterval` 250 ms), tracked by one
 *   real `TaskTracker` under the real `TaskView` and Tasks tree (`vscode` is test/helpers/vscodeClasses.ts).
 *   The tree is read the way VS Code reads it: after each change it tells, the rows it named (or the
 *   whole tree) are fetched on the next turn (`getChildren`, `getTreeItem`). Host CPU per second,
 *   heap per live task (after full GCs) and the redraws the tree asks for in any 1 s window.
 * - **scale 5 MB result**: one tool task whose result is a 5 MB text, over stdio; from the moment
 *   the tracker holds the result to the text of the document the UI shows for it — a result over
 *   `RESULT_RENDER_BOUND` opens as its plain-text first part (`mcp-task-text:`, head) beside the
 *   task's rendered document — as `TaskDocumentProvider.provideTextDocumentContent` makes them.
 */
import type { ServerRegistry } from '../src/core/connection/registry.js';
import { McpConnection } from '../src/core/connection/connection.js';
import { TaskLedger } from '../src/core/receiver/ledger.js';
import { requestorSides } from '../src/core/requestor/hostSides.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import { TaskView } from '../src/core/view/taskView.js';
import { TaskDocumentProvider, taskTextUri, taskUri } from '../src/ui/documents/resultDocuments.js';
import { TasksTreeProvider, type TasksNode } from '../src/ui/view/tasksTree.js';
import { REQUESTOR_SERVER_JS, ROOT, stdioServer } from './common.js';
import { maxInWindow } from './stats.js';

const noEvent = () => ({ dispose() {} });
const emptyRegistry = { connections: [], get: () => undefined, onDidChangeState: noEvent, onDidChangeConnections: noEvent } as unknown as ServerRegistry;
const TOOL = { name: 'slow', execution: { taskSupport: 'required' as const } };

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/** Resolves once every task of `keys` has left `sending`/`tracking` (on the tracker's change events). */
function allFinished(tracker: TaskTracker, keys: readonly string[], ms: number): Promise<void> {
  const open = new Set(keys.filter((k) => ['sending', 'tracking'].includes(tracker.get(k)?.phase ?? '')));
  if (open.size === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${open.size} of ${keys.length} tasks`));
    }, ms);
    const sub = tracker.onDidChange((e) => {
      if (!open.has(e.key) || ['sending', 'tracking'].includes(tracker.get(e.key)?.phase ?? '')) return;
      open.delete(e.key);
      if (open.size > 0) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}

async function connect(servers: number): Promise<McpConnection[]> {
  const connections = Array.from({ length: servers }, (_, i) => new McpConnection(stdioServer(`scale-${i + 1}`, REQUESTOR_SERVER_JS), { sides: requestorSides(), variables: { env: process.env, workspaceFolder: ROOT } }));
  try {
    await Promise.all(connections.map((c) => c.start()));
  } catch (e) {
    for (const c of connections) c.dispose();
    throw e;
  }
  return connections;
}

export interface ConcurrentRun {
  readonly tasks: number;
  readonly servers: number;
  /** First call → last result (ms), and this process's CPU over it, less the forced GCs of the heap measure. */
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Heap (after full GCs) with every task live, less before the calls, ÷ tasks. */
  readonly heapPerTask: number;
  /** Tree redraws told to VS Code, and the most that started in any 1 s window. */
  readonly redraws: number;
  readonly redrawsMaxPerSecond: number;
  /** Tasks that did not end with a result. */
  readonly missing: number;
}

/** 1,000 (`tasks`) tool tasks at once over `servers` stdio servers, through tracker, view and tree. */
export async function concurrentRun(servers: number, tasks: number, taskMs: number): Promise<ConcurrentRun> {
  const connections = await connect(servers);
  const byId = new Map(connections.map((c) => [c.definition.id, c]));
  const tracker = new TaskTracker({ connectionFor: (id) => byId.get(id), ttlMs: () => 600_000 });
  const ledger = new TaskLedger();
  const view = new TaskView(ledger, tracker);
  const tree = new TasksTreeProvider(emptyRegistry, view);
  const fires: number[] = [];
  // VS Code's side: on each change told, fetch on the next turn what it named (all rows when none).
  const fetchAll = (node?: TasksNode) => {
    for (const c of tree.getChildren(node)) {
      tree.getTreeItem(c);
      fetchAll(c);
    }
  };
  const sub = tree.onDidChangeTreeData((e) => {
    fires.push(performance.now());
    setImmediate(() => {
      if (!e) fetchAll();
      else for (const n of Array.isArray(e) ? e : [e]) tree.getTreeItem(n);
    });
  });
  tree.setVisible(true);
  tree.refresh();
  try {
    gc();
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const keys = await Promise.all(Array.from({ length: tasks }, (_, i) => tracker.callTool(connections[i % servers]!, TOOL, { ms: taskMs })));
    // Every task created and tracked: the heap they hold (the GCs' own CPU left out of the CPU figure).
    const g0 = process.cpuUsage();
    gc();
    gc();
    const heap1 = process.memoryUsage().heapUsed;
    const gcCpu = cpuMs(g0);
    const tracking = keys.filter((k) => tracker.get(k)?.phase === 'tracking').length;
    await allFinished(tracker, keys, taskMs + 120_000);
    const wallMs = performance.now() - t0;
    const cpu = cpuMs(c0) - gcCpu;
    await new Promise((r) => setTimeout(r, 250)); // the last coalesced redraw
    const missing = keys.filter((k) => tracker.get(k)?.phase !== 'done' || tracker.get(k)?.outcome?.kind !== 'result').length;
    if (tracking < tasks * 0.9) throw new Error(`only ${tracking} of ${tasks} tasks were tracking when the heap was measured (tasks of ${taskMs} ms too short?)`);
    const inWindow = fires.filter((t) => t >= t0);
    return { tasks, servers, wallMs, cpuMs: cpu, heapPerTask: (heap1 - heap0) / tasks, redraws: inWindow.length, redrawsMaxPerSecond: maxInWindow(inWindow, 1000), missing };
  } finally {
    sub.dispose();
    tree.dispose();
    view.dispose();
    tracker.dispose();
    ledger.dispose();
    for (const c of connections) c.dispose();
  }
}

export interface LargeResultRun {
  readonly chars: number;
  /** The tracker holding the result → the text of the first part (head) and of the rendered document, as the provider makes them (ms). */
  readonly shownMs: number;
  /** Of which: the first part alone, then the rendered document. */
  readonly headMs: number;
  readonly renderedMs: number;
  /** "Open the full result": the whole text as a document (ms; after the above). */
  readonly fullMs: number;
  /** The call → the tracker holding the result (ms; over stdio: the server's answer, the SDK's parse, the tracker). */
  readonly fetchMs: number;
  readonly headChars: number;
}

/** One tool task with a `chars`-character result, from the call to the documents the UI shows. */
export async function largeResultRun(chars: number): Promise<LargeResultRun> {
  const [connection] = await connect(1);
  const tracker = new TaskTracker({ connectionFor: () => connection, ttlMs: () => 600_000 });
  const ledger = new TaskLedger();
  const view = new TaskView(ledger, tracker);
  const provider = new TaskDocumentProvider(view);
  try {
    const t0 = performance.now();
    const key = await tracker.callTool(connection!, TOOL, { ms: 50, chars });
    // The moment the tracker holds the result (its change event), the documents are asked for at once.
    const done = await new Promise<{ at: number; head: number; rendered: number; headChars: number }>((resolve, reject) => {
      const sub = tracker.onDidChange((e) => {
        if (e.key !== key || tracker.get(key)?.phase !== 'done') return;
        sub.dispose();
        const at = performance.now();
        const item = view.item(`sent:${key}`);
        if (item?.outcome?.kind !== 'result') return reject(new Error(`the large result's task ended without a result: ${JSON.stringify(tracker.get(key)?.outcome).slice(0, 300)}`));
        const head = provider.provideTextDocumentContent(taskTextUri(item, 'head') as never);
        const t1 = performance.now();
        provider.provideTextDocumentContent(taskUri(item) as never);
        resolve({ at, head: t1 - at, rendered: performance.now() - t1, headChars: head.length });
      });
    });
    const item = view.item(`sent:${key}`)!;
    const t2 = performance.now();
    const full = provider.provideTextDocumentContent(taskTextUri(item, 'full') as never);
    const fullMs = performance.now() - t2;
    if (full.length < chars) throw new Error(`the full result's document holds ${full.length} of ${chars} characters`);
    return { chars, shownMs: done.head + done.rendered, headMs: done.head, renderedMs: done.rendered, fullMs, fetchMs: done.at - t0, headChars: done.headChars };
  } finally {
    provider.dispose();
    view.dispose();
    tracker.dispose();
    ledger.dispose();
    connection!.dispose();
  }
}
