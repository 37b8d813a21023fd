/**
 * The extension API's core (src/core/api): input validation with typed errors, per-consumer
 * ownership (handles are capabilities; others only list), URIs, queueing by priority, cancelling
 * a queued task, completed and failed payloads, and a handle to a task no longer kept. On fake
 * time against the scripted server (test/helpers/fakeTaskServer.ts).
 */
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type { McpTaskListChange, McpTasksApiV1 } from '../../../api/mcp-tasks';
import { TaskApiError } from '../../../src/core/api/apiErrors.js';
import { TasksApiFactory } from '../../../src/core/api/tasksApi.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance, flush } from '../../helpers/fakeTime.js';
import { checkLeaks } from '../../helpers/leaks.js';

const TOOLS = ['build', 'flaky', 'echo'].map((name) => ({ name, inputSchema: { type: 'object' as const }, execution: { taskSupport: 'required' as const } }));

function setup(limit = 0) {
  const server = new FakeTaskServer();
  const c = server.connection(definition('demo'));
  const stopped = server.connection(definition('other'), { kind: 'stopped' });
  const tracker = new TaskTracker({ connectionFor: (id) => [c, stopped].find((x) => x.id === id), minPollIntervalMs: 10, now: () => Date.now(), maxConcurrentPerServer: () => limit });
  const ledger = new TaskLedger();
  const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
  const factory = new TasksApiFactory({ tracker, view, connections: () => [c, stopped], findTool: async (_c, name) => TOOLS.find((t) => t.name === name) });
  const dispose = () => {
    factory.dispose();
    view.dispose();
    tracker.dispose();
    ledger.dispose();
    server.dispose();
  };
  return { server, c, tracker, view, factory, dispose };
}

/** Asserts `fn` fails with a TaskApiError of `kind` whose message matches `message`. */
async function rejectsWith(fn: () => unknown, kind: string, message: RegExp): Promise<void> {
  await assert.rejects(
    async () => fn(),
    (e: unknown) => {
      assert.ok(e instanceof TaskApiError, `a TaskApiError, got ${String(e)}`);
      assert.equal(e.name, 'McpTasksApiError');
      assert.equal(e.kind, kind);
      assert.match(e.message, message);
      return true;
    },
  );
}

const build = (priority?: 'low' | 'normal' | 'high' | 'urgent') => ({ server: 'demo', method: 'tools/call' as const, params: { name: 'build', arguments: { steps: 1 } }, ...(priority ? { priority } : {}) });

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

describe('input validation: typed errors naming the problem', () => {
  checkLeaks();

  test('getApi, createTask, getTask, listTasks and watchTasks reject bad input', async () => {
    const { factory, dispose } = setup();
    await rejectsWith(() => factory.getApi(42 as unknown as string), 'invalid_input', /extensionId/);
    await rejectsWith(() => factory.getApi('no-dot'), 'invalid_input', /extensionId.*publisher\.name/);
    const api = factory.getApi('acme.runner');
    await rejectsWith(() => api.createTask(undefined as never), 'invalid_input', /Invalid request/);
    await rejectsWith(() => api.createTask({ ...build(), method: 'tasks/get' } as never), 'invalid_input', /request\.method: only "tools\/call"/);
    await rejectsWith(() => api.createTask({ ...build(), priority: 'asap' } as never), 'invalid_input', /request\.priority/);
    await rejectsWith(() => api.createTask({ ...build(), params: { name: '' } }), 'invalid_input', /request\.params\.name/);
    await rejectsWith(() => api.createTask({ ...build(), params: { name: 'build', arguments: [] } } as never), 'invalid_input', /request\.params\.arguments/);
    await rejectsWith(() => api.createTask({ ...build(), hint: { estimatedDurationMs: -1 } }), 'invalid_input', /request\.hint\.estimatedDurationMs/);
    await rejectsWith(() => api.createTask({ ...build(), hint: { cancellable: 'no' } } as never), 'invalid_input', /request\.hint\.cancellable/);
    await rejectsWith(() => api.createTask({ ...build(), extra: 1 } as never), 'invalid_input', /request/);
    await rejectsWith(() => api.createTask({ ...build(), server: 'nope' }), 'unknown_server', /No configured server "nope" \(configured: "demo", "other"\)/);
    await rejectsWith(() => api.createTask({ ...build(), server: 'other' }), 'server_not_running', /"other" is not running \(stopped\)/);
    await rejectsWith(() => api.createTask({ ...build(), params: { name: 'missing' } }), 'unknown_tool', /"demo" has no tool "missing"/);
    await rejectsWith(() => api.getTask('https://demo/sent/x'), 'invalid_input', /Invalid uri: not a task URI/);
    await rejectsWith(() => api.getTask('mcp-task://demo/sent/unknown-id'), 'not_found', /No task mcp-task:\/\/demo\/sent\/unknown-id/);
    await rejectsWith(() => api.listTasks({ direction: 'up' } as never), 'invalid_input', /filter\.direction/);
    await rejectsWith(() => api.listTasks({ states: ['running'] } as never), 'invalid_input', /filter\.states\.0/);
    await rejectsWith(() => api.watchTasks(undefined as never), 'invalid_input', /listener/);
    api.dispose();
    await rejectsWith(() => api.listTasks(), 'disposed', /acme\.runner/);
    dispose();
  });
});

describe('handles', () => {
  checkLeaks();

  test('a task runs to its completed payload; its URI finds it again; progress and changes arrive', async () => {
    const { server, tracker, factory, dispose } = setup();
    const api = factory.getApi('acme.runner');
    const h = await api.createTask({ ...build('high'), hint: { estimatedDurationMs: 3000, supportsProgress: true } });
    assert.match(h.uri, /^mcp-task:\/\/demo\/sent\/[0-9a-f-]{36}$/);
    const states: string[] = [];
    h.onDidChange((s) => states.push(s.state));
    await flush();
    const s = h.snapshot();
    assert.equal(s.state, 'working');
    assert.equal(s.priority, 'high');
    assert.deepEqual(s.hint, { estimatedDurationMs: 3000, supportsProgress: true });
    assert.equal(s.toolName, 'build');
    assert.ok(s.taskId, 'the server named the task (the handle followed the re-key)');
    assert.equal(api.getTask(h.uri), h, 'getTask gives the same handle');
    const result = h.result();
    server.set(s.taskId!, 'completed', { content: [{ type: 'text', text: 'built' }] });
    await advance(1000);
    assert.deepEqual(await result, { status: 'completed', result: { content: [{ type: 'text', text: 'built' }] } });
    assert.equal(h.snapshot().state, 'completed');
    assert.ok(states.includes('completed'));
    assert.equal(tracker.snapshot().length, 1);
    dispose();
  });

  test('a failed task gives its failed payload (the isError tool result)', async () => {
    const { server, factory, dispose } = setup();
    const api = factory.getApi('acme.runner');
    const h = await api.createTask({ server: 'demo', method: 'tools/call', params: { name: 'flaky' } });
    await flush();
    server.set(h.snapshot().taskId!, 'failed', { content: [{ type: 'text', text: 'flaky failed: 503' }], isError: true });
    await advance(1000);
    assert.deepEqual(await h.result(), { status: 'failed', result: { content: [{ type: 'text', text: 'flaky failed: 503' }], isError: true } });
    dispose();
  });

  test('with the server at its limit, tasks queue and start by priority; a queued task is cancelled without reaching the server', async () => {
    const { server, factory, dispose } = setup(1);
    const api = factory.getApi('acme.runner');
    const first = await api.createTask(build());
    const low = await api.createTask(build('low'));
    const urgent = await api.createTask(build('urgent'));
    const doomed = await api.createTask(build('high'));
    await flush();
    for (const h of [low, urgent, doomed]) assert.equal(h.snapshot().state, 'queued');
    const cancelled = await doomed.cancel();
    assert.equal(cancelled.state, 'cancelled');
    assert.deepEqual(await doomed.result(), { status: 'cancelled', message: 'Cancelled while queued: it never reached the server.' });
    assert.equal(server.count('tools/call'), 1);
    server.set(first.snapshot().taskId!, 'completed');
    await advance(1000);
    assert.equal(urgent.snapshot().state, 'working', 'urgent starts first');
    assert.equal(low.snapshot().state, 'queued');
    server.set(urgent.snapshot().taskId!, 'completed');
    await advance(1000);
    assert.equal(low.snapshot().state, 'working');
    assert.equal(server.count('tools/call'), 3, 'the cancelled one never went out');
    dispose();
  });

  test('hint cancellable: false refuses cancel(); a running task is cancelled through tasks/cancel otherwise', async () => {
    const { server, factory, dispose } = setup();
    const api = factory.getApi('acme.runner');
    const fixed = await api.createTask({ ...build(), hint: { cancellable: false } });
    await rejectsWith(() => fixed.cancel(), 'not_cancellable', /cancellable: false/);
    const h = await api.createTask(build());
    await flush();
    const s = await h.cancel();
    assert.equal(s.state, 'cancelled');
    assert.equal(server.count('tasks/cancel'), 1);
    dispose();
  });

  test('a task no longer kept (dismissed or pruned): the handle says so with a typed error, result() rejects instead of hanging', async () => {
    const { server, tracker, factory, dispose } = setup();
    const api = factory.getApi('acme.runner');
    const h = await api.createTask(build());
    await flush();
    server.set(h.snapshot().taskId!, 'completed');
    await advance(1000);
    const removed: string[] = [];
    h.onDidRemove((e) => removed.push(e.kind));
    tracker.remove(tracker.snapshot()[0]!.key); // Dismiss in the tree
    await flush();
    assert.deepEqual(removed, ['pruned']);
    await rejectsWith(() => h.snapshot(), 'pruned', /no longer kept: it was dismissed or pruned/);
    await rejectsWith(() => h.result(), 'pruned', /no longer kept/);
    await rejectsWith(() => h.cancel(), 'pruned', /no longer kept/);
    await rejectsWith(() => api.getTask(h.uri), 'pruned', /no longer kept/);
    dispose();
  });
});

describe('consumers cannot reach each other’s tasks except by listing', () => {
  checkLeaks();

  test('another API object (even with the same label) sees the task only in listTasks, without arguments or results; getTask is forbidden', async () => {
    const { tracker, c, factory, dispose } = setup();
    const mine = factory.getApi('acme.runner');
    const theirs = factory.getApi('acme.runner');
    const h = await mine.createTask(build());
    await tracker.callTool(c, { name: 'echo', execution: { taskSupport: 'required' } }, { text: 'from the tree' });
    await flush();
    await rejectsWith(() => theirs.getTask(h.uri), 'forbidden', /not created through this API object/);
    const listed = theirs.listTasks();
    assert.equal(listed.length, 2);
    const entry = listed.find((s) => s.uri === h.uri)!;
    assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'direction', 'mine', 'server', 'state', 'title', 'uri']);
    assert.equal(entry.mine, false);
    assert.equal(mine.listTasks({ mine: true }).length, 1);
    assert.equal(mine.listTasks({ mine: true })[0]!.uri, h.uri);
    const treeTask = mine.listTasks({ mine: false })[0]!;
    assert.equal(treeTask.title, 'echo');
    await rejectsWith(() => mine.getTask(treeTask.uri), 'forbidden', /not created through this API object/);
    await rejectsWith(() => mine.getTask(h.uri.replace('//demo/', '//other/')), 'not_found', /No task/);
    await rejectsWith(() => mine.getTask('mcp-task://demo/received/abc'), 'forbidden', /only listed/);
    assert.equal(mine.listTasks({ server: 'other' }).length, 0);
    assert.equal(mine.listTasks({ direction: 'received' }).length, 0);
    assert.equal(mine.listTasks({ direction: 'sent', states: ['working'] }).length, 2);
    dispose();
  });

  test('watchTasks reports added, updated and removed tasks matching its filter', async () => {
    const { server, tracker, factory, dispose } = setup();
    const api = factory.getApi('acme.runner');
    const changes: McpTaskListChange[] = [];
    const sub = api.watchTasks((c) => changes.push(c), { mine: true });
    const h = await api.createTask(build());
    await advance(10);
    server.set(h.snapshot().taskId!, 'completed');
    await advance(1000);
    tracker.remove(tracker.snapshot()[0]!.key);
    await advance(10);
    const seen = changes.map((c) => `${c.kind}:${c.task.state}`);
    assert.equal(seen[0]!.startsWith('added:'), true, seen.join(', '));
    assert.ok(seen.includes('updated:completed'), seen.join(', '));
    assert.equal(seen.at(-1), 'removed:completed');
    assert.ok(changes.every((c) => c.task.uri === h.uri));
    sub.dispose();
    const before = changes.length;
    await api.createTask(build());
    await advance(10);
    assert.equal(changes.length, before, 'nothing after dispose');
    dispose();
  });

  test('disposing an API object rejects its pending results; its tasks keep running', async () => {
    const { factory, tracker, dispose } = setup();
    const api: McpTasksApiV1 = factory.getApi('acme.runner');
    const h = await api.createTask(build());
    const pending = h.result();
    api.dispose();
    await rejectsWith(() => pending, 'disposed', /disposed/);
    assert.equal(tracker.snapshot()[0]!.phase === 'sending' || tracker.snapshot()[0]!.phase === 'tracking', true);
    dispose();
  });
});
