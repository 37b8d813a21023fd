/** A row's actions reach whoever carries them out, by the row's kind (core/view/taskActions.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import { TaskActions } from '../../../src/core/view/taskActions.js';
import { TaskView, type SentTaskViewItem, type TaskViewItem } from '../../../src/core/view/taskView.js';
import { checkLeaks } from '../../helpers/leaks.js';

const ELICIT = { method: 'elicitation/create', params: { message: 'Pick', requestedSchema: {} } };

/** A tracker that records what it was asked, answering `cancel`/`retrieve` with `answer`. */
function recordingTracker(answer: Partial<SentTaskSnapshot> = {}) {
  const calls: string[] = [];
  const tracker = {
    cancel: async (key: string) => (calls.push(`cancel ${key}`), answer),
    retrieve: async (key: string) => (calls.push(`retrieve ${key}`), answer),
    remove: (key: string) => void calls.push(`remove ${key}`),
    follow: (key: string) => (calls.push(`follow ${key}`), false),
    clearFinished: () => (calls.push('clearFinished'), 0),
  } as unknown as TaskTracker;
  return { tracker, calls };
}

const sent = (over: Partial<SentTaskViewItem> = {}): SentTaskViewItem => ({ id: 'sent:demo/t1', kind: 'sent', key: 'demo/t1', direction: 'sent', serverId: 'demo', serverName: 'demo', taskId: 't1', title: 'tool', state: 'working', createdAt: 0, ...over });

describe('TaskActions', () => {
  checkLeaks();

  test('a received task is cancelled in its ledger scope (the server hears it); once ended it says so', async () => {
    const ledger = new TaskLedger();
    const { tracker, calls } = recordingTracker();
    const realTracker = new TaskTracker({ connectionFor: () => undefined });
    const view = new TaskView(ledger, realTracker, { coalesceMs: 0 });
    const actions = new TaskActions(tracker, ledger, () => assert.fail('not a plain request'));
    const t = await ledger.forServer('srv', 'Server').createTask({}, 1, ELICIT);
    const item = view.item(`received:srv/${t.taskId}`)!;
    assert.equal(item.kind, 'received');
    assert.deepEqual(await actions.cancel(item, 'Cancelled by the user'), { kind: 'cancelled' });
    assert.equal(ledger.tasksOf('srv')!.get(t.taskId)!.task.status, 'cancelled');
    assert.deepEqual(await actions.cancel(item, 'again'), { kind: 'already-finished' });
    actions.remove(item);
    assert.equal(ledger.tasksOf('srv')!.get(t.taskId), undefined);
    assert.deepEqual(calls, [], 'the tracker is not asked about a received task');
    // Clear Finished: the finished received task goes, a working one stays, and the tracker clears its own.
    const scope = ledger.tasksOf('srv')!;
    const done = await scope.createTask({}, 2, ELICIT);
    const working = await scope.createTask({}, 3, ELICIT);
    scope.cancel(done.taskId, 'done');
    actions.clearFinished(view.items());
    assert.equal(scope.get(done.taskId), undefined);
    assert.ok(scope.get(working.taskId));
    assert.deepEqual(calls, ['clearFinished']);
    view.dispose();
    realTracker.dispose();
    ledger.dispose();
  });

  test('a plain received request is ended by the UI\'s canceller', async () => {
    const ledger = new TaskLedger();
    const { tracker } = recordingTracker();
    const asked: string[] = [];
    const actions = new TaskActions(tracker, ledger, (i, reason) => (asked.push(`${i.id}: ${reason}`), true));
    const plain: TaskViewItem = { id: 'plain:1', kind: 'request', direction: 'received', serverId: 'srv', serverName: 'srv', taskId: 'p1', title: 'ask', state: 'waitingForUser', createdAt: 0, mode: 'plain' };
    assert.deepEqual(await actions.cancel(plain, 'Cancelled by the user'), { kind: 'cancelled' });
    assert.deepEqual(asked, ['plain:1: Cancelled by the user']);
    ledger.dispose();
  });

  test('a sent call goes to the tracker by its key; a cancel the server did not take says why', async () => {
    const ledger = new TaskLedger();
    const ok = recordingTracker({ task: { status: 'cancelled' } as SentTaskSnapshot['task'] });
    assert.deepEqual(await new TaskActions(ok.tracker, ledger, () => false).cancel(sent(), 'x'), { kind: 'cancelled' });
    const refused = recordingTracker({ reason: 'tasks/cancel failed: gone', task: { status: 'working' } as SentTaskSnapshot['task'] });
    const actions = new TaskActions(refused.tracker, ledger, () => false);
    assert.deepEqual(await actions.cancel(sent(), 'x'), { kind: 'not-cancelled', reason: 'tasks/cancel failed: gone' });
    actions.remove(sent());
    actions.clearFinished([sent()]);
    assert.deepEqual(refused.calls, ['cancel demo/t1', 'remove demo/t1', 'clearFinished']);
    ledger.dispose();
  });

  test('retrieve follows the call, and asks again for a finished result that never arrived', async () => {
    const ledger = new TaskLedger();
    const missing = recordingTracker({ reason: 'tasks/result failed' });
    const actions = new TaskActions(missing.tracker, ledger, () => false);
    assert.deepEqual(await actions.retrieve(sent({ state: 'working' })), { kind: 'ready' });
    assert.deepEqual(await actions.retrieve(sent({ state: 'completed' })), { kind: 'missing', reason: 'tasks/result failed' });
    assert.deepEqual(await actions.retrieve(sent({ state: 'completed', outcome: { kind: 'result', result: { content: [] } } as TaskViewItem['outcome'] })), { kind: 'ready' });
    assert.deepEqual(missing.calls, ['follow demo/t1', 'follow demo/t1', 'retrieve demo/t1', 'follow demo/t1']);
    ledger.dispose();
  });
});
