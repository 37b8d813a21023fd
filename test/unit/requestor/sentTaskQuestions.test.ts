/**
 * A sent call's question link (sentTask.ts, questionDoor.ts): made only when a question comes, it
 * still tells the truth — a question that comes after the call ended, was cancelled or forgotten
 * finds `closed` aborted with the reason, and one open while it ends sees it abort then.
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
  });
});
