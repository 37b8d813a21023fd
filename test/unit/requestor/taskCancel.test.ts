/** One sent task's cancel on its own (requestor/taskCancel.ts): `tasks/cancel` and what its answer says. */
import { afterEach, beforeEach, describe, test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, ProtocolError } from '../../../src/core/base/errors.js';
import { toSnapshot } from '../../../src/core/requestor/sentRecord.js';
import type { SentTask } from '../../../src/core/requestor/sentTask.js';
import { sentTask, task } from '../../helpers/sentTaskFixture.js';

/** The user's Cancel (tracker.ts `cancel`): the task as it stands after it. */
const cancelSentTask = (sent: SentTask) => sent.cancel().then(() => toSnapshot(sent.record));

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

describe('cancelling one sent task', () => {
  test('tasks/cancel goes out once; the cancelled task it answers ends the tracking at once', async () => {
    let sent = 0;
    const f = sentTask({ cancelTask: () => (sent++, Promise.resolve(task({ status: 'cancelled' }))) });
    const [a, b] = await Promise.all([cancelSentTask(f.sent), cancelSentTask(f.sent)]);
    assert.equal(sent, 1, 'concurrent cancels share one request');
    assert.equal(a.phase, 'done');
    assert.equal(b.task?.status, 'cancelled');
    assert.equal(f.sent.live, undefined, 'no poll follows');
  });

  test('with its server away, the cancel waits for it, saying so', async () => {
    const f = sentTask({ cancelTask: () => assert.fail('not sent while the server is away') });
    f.connection.state = { kind: 'error', message: 'gone' };
    const snap = await cancelSentTask(f.sent);
    assert.equal(snap.cancelRequested, true);
    assert.equal(snap.reason, 'Cancel requested: tasks/cancel goes out when "Server S" is connected again.');
  });

  test('a task that ended before the cancel arrived takes the terminal status the refusal names', async () => {
    const f = sentTask(
      {
        cancelTask: () => Promise.reject(new ProtocolError(ErrorCode.InvalidParams, "Cannot cancel task: already in terminal status 'completed'")),
        getToolResult: () => Promise.resolve({ content: [] }),
      },
    );
    const snap = await cancelSentTask(f.sent);
    assert.match(snap.reason ?? '', /^The server could not cancel it: /);
    assert.equal(f.sent.record.task?.status, 'completed');
    assert.equal(f.sent.record.cancelRequested, undefined);
  });

  test('a finished task has nothing to cancel', async () => {
    const f = sentTask({}, { task: task({ status: 'completed' }), phase: 'done' });
    const snap = await cancelSentTask(f.sent);
    assert.equal(snap.reason, 'Already completed; nothing to cancel.');
  });
});
