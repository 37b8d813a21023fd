/**
 * A sent call's question link (sentTask.ts, questionDoor.ts): made only when a question comes, it
 * still tells the truth — a question that comes after the call ended, was cancelled or forgotten
 * finds `closed` aborted with the reason, and one open while it ends sees it abort then. A question
 * answered here links with `onClose` instead (no signal of the call's is made for it): told once, with
 * the same reason, when the call ends; told at once when linked after; not told once its link is gone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SentTask, type SentTaskHost } from '../../../src/core/requestor/sentTask.js';
import { T0, storedTask } from '../../helpers/storedTasks.js';

const host: SentTaskHost = {
  options: { connectionFor: () => undefined },
  now: () => T0,
  wireFor: () => {
    throw new Error('no wire in this test');
  },
  changed: () => undefined,
  named: () => undefined,
  polled: () => undefined,
  connectionLost: () => undefined,
  listenOn: () => undefined,
};

const sending = (n: number) => new SentTask({ ...storedTask(n, { phase: 'sending', sentAt: T0 }), mode: 'plain' }, host);

describe('a sent call\'s question link', () => {
  test('read first after the call ended: closed is aborted already, with the reason', () => {
    const sent = sending(1);
    sent.finish('done');
    const closed = sent.call.closed;
    assert.equal(closed.aborted, true);
    assert.match(String((closed.reason as Error).message), /it ended/);
    assert.equal(sent.takesQuestions, false);
  });

  test('read while the call runs: not aborted, and aborted when it ends', () => {
    const sent = sending(2);
    const closed = sent.call.closed;
    assert.equal(closed.aborted, false);
    assert.equal(sent.call.closed, closed, 'one signal for the call');
    sent.finish('error', 'failed');
    assert.equal(closed.aborted, true);
  });

  test('a call loaded finished takes no question', () => {
    const sent = new SentTask(storedTask(3, { phase: 'done', sentAt: T0, finishedAt: T0 }), host);
    assert.equal(sent.call.closed.aborted, true);
    assert.equal(sent.call.isClosed(), true);
  });

  test('questions linked with onClose: the open ones are told when the call ends, with the reason the signal gets', () => {
    const sent = sending(4);
    const told: Array<[string, Error]> = [];
    const open = sent.call.onClose((reason) => told.push(['open', reason]));
    const gone = sent.call.onClose((reason) => told.push(['gone', reason]));
    gone.dispose();
    assert.equal(sent.call.isClosed(), false);
    const closed = sent.call.closed;
    sent.closeQuestions('it was cancelled');
    assert.equal(sent.call.isClosed(), true);
    assert.deepEqual(
      told.map(([which]) => which),
      ['open'],
      'only the question still linked is told, once',
    );
    assert.equal(told[0]![1], closed.reason, 'the same reason as the signal');
    assert.match(told[0]![1].message, /it was cancelled/);
    sent.finish('done');
    open.dispose();
    assert.equal(told.length, 1, 'told once, though the call ended after');
    // Linked after the call's questions closed: told at once.
    let late: Error | undefined;
    sent.call.onClose((reason) => (late = reason)).dispose();
    assert.match(String(late?.message), /it was cancelled/);
  });

  test('a call that ends with no question linked and its signal never read makes neither', () => {
    const sent = sending(5);
    sent.call.onClose(() => assert.fail('unlinked')).dispose();
    sent.finish('done');
    assert.equal(sent.call.isClosed(), true);
    assert.equal(sent.call.closed.aborted, true, 'read later: aborted already');
  });
});
