/** One sent task's life on its own (requestor/sentTask.ts): attach, detach, pause, finish, its checked phase, and the wire it speaks. */
import { afterEach, beforeEach, describe, test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/core/base/errors.js';
import { PhaseTransitionError } from '../../../src/core/requestor/sentTask.js';
import { wireByGeneration } from '../../../src/core/requestor/wire/select.js';
import { fakeConnection, sentTask } from '../../helpers/sentTaskFixture.js';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 5_000 }));
afterEach(() => mock.timers.reset());

describe('a sent task', () => {
  test('detaching stops its clock and aborts its requests; attaching again starts a fresh drive', async () => {
    const f = sentTask({});
    const first = f.sent.live!;
    let fired = false;
    f.sent.clock.pollIn(10, { poll: () => void (fired = true) });
    assert.equal(f.sent.clock.pollDue, true);
    const pending = first.requests.run((signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))));
    f.sent.detach();
    await assert.rejects(pending, /stopped tracking/);
    mock.timers.tick(20);
    assert.equal(fired, false, 'its poll timer was cleared');
    assert.equal(f.sent.live, undefined);
    const again = f.sent.attach(f.connection);
    assert.notEqual(again, first);
    assert.equal(again.resultFailures, 0);
    assert.equal(again.resumedAfterPause, false);
    assert.equal(first.current, false, 'the old drive no longer drives it');
    f.sent.dispose();
  });

  test('pause: a task waits for its server; a plain call in flight has lost its answer', () => {
    const task = sentTask({});
    task.sent.pause('"Server S" was stopped');
    assert.equal(task.sent.record.phase, 'paused');
    assert.equal(task.sent.record.reason, '"Server S" was stopped');
    assert.deepEqual(task.told, ['updated']);

    const plain = sentTask({}, { mode: 'plain', phase: 'sending', task: undefined });
    plain.sent.pause('"Server S" was stopped');
    assert.equal(plain.sent.record.phase, 'error');
    assert.deepEqual(plain.sent.record.outcome, { kind: 'error', code: ErrorCode.ConnectionClosed, message: '"Server S" was stopped' });
    assert.equal(plain.sent.record.finishedAt, 5_000);
  });

  test('finish notes when it finished only on the way into a finished phase', () => {
    const f = sentTask({});
    f.sent.finish('done', 'all good');
    assert.equal(f.sent.record.finishedAt, 5_000);
    mock.timers.tick(1_000);
    f.sent.finish('done');
    assert.equal(f.sent.record.finishedAt, 5_000, 'finishing again keeps the first time');
    assert.equal(f.sent.record.reason, 'all good', 'no reason given: the one it had stays');
  });

  test('an illegal phase move throws a typed error and changes nothing: a finished task never starts again', () => {
    const f = sentTask({});
    f.sent.finish('done', 'all good');
    assert.throws(
      () => f.sent.moveTo('tracking'),
      (e: unknown) => e instanceof PhaseTransitionError && e.key === 's/t1' && e.from === 'done' && e.to === 'tracking' && /already ended \(done\)/.test(e.message),
    );
    assert.throws(() => f.sent.finish('error', 'late'), PhaseTransitionError, 'a finished task does not end a second way');
    assert.equal(f.sent.record.phase, 'done');
    assert.equal(f.sent.record.reason, 'all good', 'a refused move leaves the reason too');

    const named = sentTask({});
    assert.throws(() => named.sent.moveTo('queued'), PhaseTransitionError, 'a task the server named never goes back to the queue');
    assert.throws(() => named.sent.moveTo('sending'), PhaseTransitionError, 'nor out again');
    named.sent.moveTo('paused', 'waiting');
    named.sent.moveTo('tracking', null);
    assert.equal(named.sent.record.reason, undefined, 'null clears the reason');
    named.sent.dispose();
  });

  test('it speaks the wire it was sent on, whatever its connection speaks now', () => {
    const hostWire = { generation: 'host' };
    const f = sentTask(hostWire as never, { wire: '2026-07-28' });
    assert.equal(f.sent.wire(fakeConnection()), wireByGeneration('2026-07-28'));
    const unknown = sentTask(hostWire as never, { wire: undefined });
    assert.equal(unknown.sent.wire(fakeConnection()), hostWire);
  });
});
