/**
 * The Tasks tree tells VS Code of a change only once VS Code fetched the last one
 * (src/ui/view/tasksTree.ts, `vscode` stubbed). VS Code's extension host debounces a tree's change
 * events by 200 ms and restarts that wait on every event (code-server 4.139, `ExtHostTreeView`):
 * a task reporting progress every 100 ms, with the elapsed-time ticker, left the real view at two
 * of five rows, frozen, for as long as the task ran — the provider kept firing, VS Code fetched
 * nothing. Here that debounce is modelled in front of the tree model of test/helpers/fakeTreeView.ts,
 * and a host that fetches only when told shows what is told when.
 */
import '../../helpers/vscodeStub.js';
import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { TasksTreeProvider, type TasksNode } from '../../../src/ui/view/tasksTree.js';
import { advance } from '../../helpers/fakeTime.js';
import { FakeTreeView } from '../../helpers/fakeTreeView.js';
import { checkLeaks } from '../../helpers/leaks.js';

type Change = TasksNode | TasksNode[] | undefined | void;

function setUp() {
  const noEvent = () => ({ dispose() {} });
  // No configured server: the ledger's scope is drawn as a server no longer configured.
  const registry = { connections: [], get: () => undefined, onDidChangeState: noEvent, onDidChangeConnections: noEvent } as unknown as ServerRegistry;
  const ledger = new TaskLedger();
  const tracker = new TaskTracker({ connectionFor: () => undefined });
  const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
  const provider = new TasksTreeProvider(registry, view);
  provider.setVisible(true);
  const scope = ledger.forServer('srv', 'everything');
  return {
    view,
    provider,
    /** A received task (a sampling request), working. */
    async task(n: number): Promise<string> {
      const { taskId } = await scope.createTask({ ttl: 3_600_000 }, n, { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
      return taskId;
    },
    say: (taskId: string, message: string) => scope.updateTaskStatus(taskId, 'working', message),
    dispose() {
      provider.dispose();
      view.dispose();
      tracker.dispose();
      ledger.dispose();
    },
  };
}

/**
 * The provider as the workbench hears it through the extension host: `Event.debounce(…, 200,
 * leading)` — the first event of a quiet spell goes at once, every later one restarts a 200 ms
 * wait, and what arrived meanwhile goes as one refresh (a full one if any event was).
 */
function throughExtensionHost(provider: TasksTreeProvider) {
  const listeners = new Set<(e: Change) => unknown>();
  let timer: NodeJS.Timeout | undefined;
  let merged: (TasksNode | undefined)[] | undefined;
  let events = 0;
  const emit = (elements: (TasksNode | undefined)[]) => {
    const e = elements.includes(undefined) ? undefined : (elements as TasksNode[]);
    for (const l of listeners) l(e);
  };
  const sub = provider.onDidChangeTreeData((e) => {
    events++;
    merged = [...(merged ?? []), ...(Array.isArray(e) ? e : [e ?? undefined])];
    if (!timer) {
      emit(merged);
      merged = undefined;
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      const m = merged;
      merged = undefined;
      timer = undefined;
      if (events > 1 && m) emit(m);
      events = 0;
    }, 200);
  });
  return {
    onDidChangeTreeData: (l: (e: Change) => unknown) => {
      listeners.add(l);
      return { dispose: () => listeners.delete(l) };
    },
    getChildren: (e?: TasksNode) => provider.getChildren(e),
    getTreeItem: (e: TasksNode) => provider.getTreeItem(e),
    dispose: () => sub.dispose(),
  };
}

/** The label and description of a row. */
const text = (item: vscode.TreeItem) => `${typeof item.label === 'string' ? item.label : item.label?.label} ${item.description ?? ''}`.trim();

/**
 * A host that fetches only when the test says so, as VS Code's extension host does: the tree from
 * the root, or a row's TreeItem. `told`: each event, 'all' or the task ids of the rows named.
 */
function manualHost(provider: TasksTreeProvider) {
  const told: ('all' | string[])[] = [];
  const sub = provider.onDidChangeTreeData((e) =>
    told.push(e === undefined || e === null ? 'all' : (Array.isArray(e) ? e : [e]).map((n) => (n.kind === 'task' ? n.id.slice(n.id.lastIndexOf('/') + 1) : n.kind))),
  );
  return {
    told,
    /** VS Code asks the TreeItem of a task's row (a partial refresh), as a row's text. */
    item(taskId: string): string {
      return text(provider.getTreeItem(provider.nodeForTask(`received:srv/${taskId}`)));
    },
    /** Fetches the tree from the root, each row's children down to `depth` (0: the root's only). */
    fetch(depth = Infinity): string[] {
      const rows: string[] = [];
      const walk = (node: TasksNode | undefined, level: number) => {
        for (const child of provider.getChildren(node)) {
          rows.push(text(provider.getTreeItem(child)));
          if (level < depth) walk(child, level + 1);
        }
      };
      walk(undefined, 0);
      return rows;
    },
    dispose: () => sub.dispose(),
  };
}

describe('the Tasks tree tells VS Code of a change once it fetched the last one', () => {
  checkLeaks();

  test('a task reporting progress every 100 ms: VS Code keeps hearing of it through its 200 ms debounce (it heard nothing more once the second event came)', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    const h = setUp();
    const host = throughExtensionHost(h.provider);
    const screen = new FakeTreeView<TasksNode>(host);
    try {
      const id = await h.task(1);
      await advance(10);
      assert.match(screen.rows().join('\n'), /Sampling .*working/);
      for (let step = 1; step <= 30; step++) {
        await h.say(id, `step ${step} of 30`);
        await advance(100);
      }
      const row = screen.rows().find((r) => r.includes('Sampling')) ?? '';
      const shown = Number(/step (\d+) of 30/.exec(row)?.[1] ?? 0);
      assert.ok(shown >= 27, `VS Code shows a recent step (30 sent, 100 ms apart): ${JSON.stringify(screen.rows())}`);
      // The elapsed time moved on with it (the ticker's redraws are paced the same way).
      assert.match(row, /\b[23]s\b/, row);
    } finally {
      screen.dispose();
      host.dispose();
      h.dispose();
      mock.timers.reset();
    }
  });

  test('changes while VS Code has not fetched the last one are told as one, once it did; what it fetched is not told again', async () => {
    const h = setUp();
    const host = manualHost(h.provider);
    try {
      const a = await h.task(1);
      assert.deepEqual(host.told, ['all'], 'a new row: the whole tree');
      host.fetch();
      const b = await h.task(2);
      assert.deepEqual(host.told, ['all', 'all']);
      await h.say(a, 'a: one');
      await h.say(b, 'b: one');
      await h.task(3);
      assert.equal(host.told.length, 2, 'nothing told before VS Code fetched the last change');
      host.fetch();
      await Promise.resolve();
      assert.deepEqual(host.told.slice(2), [], 'VS Code fetched all of it from the root: nothing left to tell');

      await h.say(a, 'a: two');
      assert.deepEqual(host.told.slice(2), [[a]], 'nothing unfetched: told at once');
      await h.say(a, 'a: three');
      await h.say(b, 'b: two');
      assert.equal(host.told.length, 3, 'held until VS Code fetched the row told');
      // VS Code fetches the row it was told of (the extension host asks its TreeItem): the rest follows in one event.
      assert.match(host.item(a), /working: a: three$/);
      assert.equal(host.told.length, 3, "told once VS Code's call returned, not inside it");
      await Promise.resolve();
      assert.deepEqual(host.told.slice(3), [[b]], 'only what VS Code had not fetched: b, not a again');
    } finally {
      host.dispose();
      h.dispose();
    }
  });

  test('only rows VS Code holds are named (it ignores any other without a word, and the tree would wait for it forever)', async () => {
    const h = setUp();
    const host = manualHost(h.provider);
    try {
      const a = await h.task(1);
      // VS Code fetched the server's row only (its groups collapsed or not shown yet).
      assert.deepEqual(host.fetch(0), ['everything not configured']);
      await h.say(a, 'a: one');
      assert.deepEqual(host.told, ['all'], 'the task row is not one VS Code holds: not named');
      await h.say(a, 'a: two');
      await h.task(2);
      assert.deepEqual(host.told, ['all', 'all'], 'not waiting for a fetch of a row VS Code never held');
    } finally {
      host.dispose();
      h.dispose();
    }
  });

  test('a view shown again is told what changed while hidden without waiting for a fetch it may never make', async () => {
    const h = setUp();
    const host = manualHost(h.provider);
    try {
      const a = await h.task(1);
      host.fetch();
      await h.say(a, 'a: one');
      assert.equal(host.told.length, 2);
      h.provider.setVisible(false);
      await h.say(a, 'a: two');
      h.provider.setVisible(true);
      assert.deepEqual(host.told.slice(2), [[a]]);
    } finally {
      host.dispose();
      h.dispose();
    }
  });
});
