/** One sent task's result fetch on its own (requestor/taskDrive.ts): `tasks/result` once, retried with backoff after network errors. */
import { afterEach, beforeEach, describe, test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { advance } from '../../helpers/fakeTime.js';
import { sentTask, task } from '../../helpers/sentTaskFixture.js';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

const networkError = () => Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNRESET' } });

describe('fetching one sent task’s result', () => {
  test('a completed task fetches its payload once (concurrent asks share it) and finishes', async () => {
    let asked = 0;
    const f = sentTask({ getToolResult: () => (asked++, Promise.resolve({ content: [{ type: 'text', text: 'ok' }] })) }, { task: task({ status: 'completed' }) });
    await Promise.all([f.sent.live!.fetchResult(), f.sent.live!.fetchResult()]);
    assert.equal(asked, 1);
    assert.equal(f.sent.record.phase, 'done');
    assert.deepEqual(f.sent.record.outcome, { kind: 'result', result: { content: [{ type: 'text', text: 'ok' }] } });
    assert.equal(f.sent.record.resultFetches, 1);
    await f.sent.attach(f.connection).fetchResult();
    assert.equal(asked, 1, 'a task with its payload is not fetched again');
    f.sent.dispose();
  });

  test('a network error is retried after a growing delay, saying so; the answer clears that reason', async () => {
    let asked = 0;
    const f = sentTask(
      { getToolResult: () => (++asked <= 2 ? Promise.reject(networkError()) : Promise.resolve({ content: [] })) },
      { task: task({ status: 'failed' }) },
      { resultRetryBaseMs: 100 },
    );
    await f.sent.live!.fetchResult();
    assert.match(f.sent.record.reason ?? '', /^tasks\/result failed \(fetch failed\); trying again in 0\.1 s$/);
    await advance(99, 33);
    assert.equal(asked, 1);
    await advance(1);
    assert.equal(asked, 2);
    assert.match(f.sent.record.reason ?? '', /trying again in 0\.2 s/, 'the second delay doubles');
    await advance(200, 50);
    assert.equal(asked, 3);
    assert.equal(f.sent.record.phase, 'done');
    assert.equal(f.sent.record.reason, undefined, 'the passing reason went with the trouble');
    assert.equal(f.sent.record.passingReason, undefined);
  });

  test('after maxResultAttempts a terminal task rests done without payload, and says how to ask again', async () => {
    const f = sentTask({ getToolResult: () => Promise.reject(networkError()) }, { task: task({ status: 'completed' }) }, { maxResultAttempts: 2, resultRetryBaseMs: 10 });
    await f.sent.live!.fetchResult();
    await advance(10);
    assert.equal(f.sent.record.phase, 'done');
    assert.equal(f.sent.record.outcome, undefined);
    assert.match(f.sent.record.reason ?? '', /could not reach "Server S" \(fetch failed\); Retrieve Result tries again/);
  });
});
