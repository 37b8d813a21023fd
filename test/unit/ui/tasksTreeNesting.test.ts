/**
 * The causal tree as a user sees it: a received request nests under the sent call that
 * caused it, whichever comes first — the call's row being drawn, its naming by the server's task
 * id (CreateTaskResult), or the request. The real Tasks tree provider (src/ui/view/tasksTree.ts, `vscode`
 * stubbed) is drawn through a model of VS Code's tree (test/helpers/fakeTreeView.ts), which keeps
 * a row's collapse state by `TreeItem.id`: a call row drawn as a leaf and later given a child stayed
 * collapsed in the real VS Code (the child not shown), seen on Streamable HTTP where the request
 * comes later than over stdio.
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { TasksTreeProvider, type TasksNode } from '../../../src/ui/view/tasksTree.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { FakeTreeView } from '../../helpers/fakeTreeView.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const PLAIN_TOOL = { name: 'ask_plain' };
const TASK_TOOL = { name: 'ask_task', execution: { taskSupport: 'required' as const } };

function sampling(relatedTaskId?: string) {
  return {
    method: 'sampling/createMessage',
    params: { messages: [], maxTokens: 5, ...(relatedTaskId ? { _meta: { [RELATED_TASK_META_KEY]: { taskId: relatedTaskId } } } : {}) },
  };
}

function setUp() {
  const server = new FakeTaskServer();
  server.pollInterval = 60_000;
  const connection = server.connection(definition('srv'));
  const noEvent = () => ({ dispose() {} });
  const registry = {
    connections: [connection],
    get: (id: string) => (id === connection.id ? connection : undefined),
    onDidChangeState: noEvent,
    onDidChangeConnections: noEvent,
  } as unknown as ServerRegistry;
  const ledger = new TaskLedger();
  const tracker = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined), minPollIntervalMs: 10 });
  const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
  const provider = new TasksTreeProvider(registry, view);
  provider.setVisible(true);
  const screen = new FakeTreeView<TasksNode>(provider);
  const scope = ledger.forServer(connection.id, connection.name);
  return {
    server,
    connection,
    tracker,
    view,
    provider,
    screen,
    scope,
    /** Waits for the view to reach a state (on its change events). */
    until: (check: () => boolean, what: string) => waitFor(view.onDidChange, check, what),
    /** The rows under the call's row (deeper indent), up to the next row at its level. */
    childRows(callLabel: string): string[] {
      const rows = screen.rows();
      const at = rows.findIndex((r) => r.trimStart().startsWith(callLabel));
      assert.ok(at >= 0, `the call's row is on screen: ${JSON.stringify(rows)}`);
      const indent = rows[at]!.length - rows[at]!.trimStart().length;
      const out: string[] = [];
      for (const r of rows.slice(at + 1)) {
        if (r.length - r.trimStart().length <= indent) break;
        out.push(r.trim());
      }
      return out;
    },
    dispose() {
      screen.dispose();
      provider.dispose();
      view.dispose();
      tracker.dispose();
      ledger.dispose();
    },
  };
}

describe('the Tasks tree as VS Code draws it: a request nests under its call in any order', () => {
  checkLeaks();

  test('a plain call drawn as a leaf, then the request it causes: the call row opens and shows it', async () => {
    const h = setUp();
    try {
      const done = h.tracker.callTool(h.connection, PLAIN_TOOL, {});
      await h.until(() => h.view.items().some((i) => i.title === PLAIN_TOOL.name), 'the call to be sent');
      assert.deepEqual(h.childRows(PLAIN_TOOL.name), [], 'drawn first without children');
      // A plain call in flight is running (it has no later phase than its request going out).
      assert.match(h.screen.rows().join('\n'), /ask_plain .*running/);
      const r = await h.scope.createTask({}, 1, sampling());
      h.scope.setWaitingForUser(r.taskId, true);
      const item = h.view.item(`received:srv/${r.taskId}`);
      assert.equal(item?.parentId, h.view.items().find((i) => i.title === PLAIN_TOOL.name)?.id, 'the model nests it (one plain call in flight)');
      assert.match(h.childRows(PLAIN_TOOL.name).join('\n'), /^Sampling .*waiting for you$/, `on screen under the call: ${JSON.stringify(h.screen.rows())}`);
      assert.ok(!h.screen.rows().some((r) => /^\s*Received/.test(r) && !/none/.test(r)), 'Received stays empty');
      h.server.plainCalls[0]!({ content: [{ type: 'text', text: 'ok' }] });
      await done;
    } finally {
      h.dispose();
    }
  });

  test('a task call named by its server and drawn, then a request naming its task (related-task metadata)', async () => {
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
      const taskId = h.tracker.get(key)!.task!.taskId;
      assert.deepEqual(h.childRows(TASK_TOOL.name), []);
      const r = await h.scope.createTask({}, 1, sampling(taskId));
      h.scope.setWaitingForUser(r.taskId, true);
      assert.equal(h.view.item(`received:srv/${r.taskId}`)?.parentId, `sent:${key}`);
      assert.match(h.childRows(TASK_TOOL.name).join('\n'), /^Sampling .*waiting for you$/, `on screen under the call: ${JSON.stringify(h.screen.rows())}`);
    } finally {
      h.dispose();
    }
  });

  test('the request naming the task arrives before the CreateTaskResult names the call (Streamable HTTP ordering)', async () => {
    const h = setUp();
    try {
      let release!: () => void;
      h.server.createGate = new Promise<void>((r) => (release = r));
      const keyP = h.tracker.callTool(h.connection, TASK_TOOL, {});
      await h.until(() => h.view.items().some((i) => i.title === TASK_TOOL.name && i.state === 'sending'), 'the call to be sent');
      await h.until(() => h.server.tasks.size === 1, 'the server to create the task');
      const [taskId] = h.server.tasks.keys();
      const r = await h.scope.createTask({}, 1, sampling(taskId));
      h.scope.setWaitingForUser(r.taskId, true);
      // The call is not known by that id yet: the request waits under Received for now.
      assert.equal(h.view.item(`received:srv/${r.taskId}`)?.parentId, undefined);
      assert.match(h.screen.rows().join('\n'), /ask_task .*sending/);
      assert.match(h.screen.rows().join('\n'), /Received 1[^\n]*\n\s+Sampling .*waiting for you/);
      release();
      const key = await keyP;
      assert.equal(h.tracker.get(key)?.task?.taskId, taskId, 'the call, under the key it had, is the task the request named');
      assert.equal(h.view.item(`received:srv/${r.taskId}`)?.parentId, `sent:${key}`);
      const rows = h.screen.rows();
      assert.ok(!rows.some((row) => /ask_task .*sending/.test(row)), `no stale "sending" row: ${JSON.stringify(rows)}`);
      assert.match(h.childRows(TASK_TOOL.name).join('\n'), /^Sampling .*waiting for you$/, `on screen under the call: ${JSON.stringify(rows)}`);
      assert.match(rows.join('\n'), /Received none/);
      assert.equal(rows.filter((row) => row.trimStart().startsWith('Sampling')).length, 1, 'shown once');
    } finally {
      h.dispose();
    }
  });

  test('the once-a-second redraw (elapsed times) names neither a call with requests nor a request under it: VS Code would forget the rows below and a click on one would lose its argument', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
      const other = await h.tracker.callTool(h.connection, { ...TASK_TOOL, name: 'other' }, {});
      const r = await h.scope.createTask({}, 1, sampling(h.tracker.get(key)!.task!.taskId));
      h.scope.setWaitingForUser(r.taskId, true);
      const fired: TasksNode[][] = [];
      const sub = h.provider.onDidChangeTreeData((e) => fired.push(Array.isArray(e) ? e : e ? [e] : []));
      t.mock.timers.tick(1000);
      sub.dispose();
      const named = fired.flat().map((n) => (n.kind === 'task' ? n.id : n.kind));
      assert.deepEqual(named, [`sent:${other}`], 'only the leaf call ticks');
      assert.doesNotMatch(h.childRows(TASK_TOOL.name).join('\n'), /\ds\b/, 'the request shows no elapsed time');
    } finally {
      h.dispose();
    }
  });

  test('a row the user collapsed stays collapsed when another request arrives', async () => {
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
      const taskId = h.tracker.get(key)!.task!.taskId;
      await h.scope.createTask({}, 1, sampling(taskId));
      assert.equal(h.childRows(TASK_TOOL.name).length, 1);
      h.screen.collapse(TASK_TOOL.name);
      await h.scope.createTask({}, 2, sampling(taskId));
      assert.deepEqual(h.childRows(TASK_TOOL.name), [], 'the user collapsed it');
      assert.equal(h.view.childrenOf(`sent:${key}`).length, 2);
    } finally {
      h.dispose();
    }
  });
});
