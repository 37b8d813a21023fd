/** One sent task's polling on its own (requestor/taskDrive.ts): `tasks/get` at the latest pollInterval, what follows an answer, and its failures. */
import { afterEach, beforeEach, describe, test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, ProtocolError } from '../../../src/core/base/errors.js';
import type { WireTask } from '../../../src/core/requestor/wire/taskWire.js';
import { advance, flush } from '../../helpers/fakeTime.js';
import { sentTask, task } from '../../helpers/sentTaskFixture.js';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

describe('polling one sent task', () => {
  test('each answer is taken and told; the next tasks/get waits for the pollInterval the latest answer names', async () => {
    const answers: WireTask[] = [task({ statusMessage: 'a', pollInterval: 300 }), task({ statusMessage: 'b', pollInterval: 2000 }), task({ status: 'completed' })];
    let asked = 0;
    const f = sentTask({ getTask: () => Promise.resolve(answers[asked++]!), getToolResult: () => Promise.resolve({ content: [] }) });
    await f.sent.live!.pollOnce();
    assert.equal(asked, 1);
    assert.deepEqual(f.told, ['updated', 'polled'], 'the new message is a change, and the answer is told');
    await advance(299, 50);
    assert.equal(asked, 1, 'not before the 300 ms the answer asked for');
    await advance(1);
    assert.equal(asked, 2);
    await advance(1999, 100);
    assert.equal(asked, 2, 'the latest interval (2 s) now applies');
    await advance(1);
    await flush();
    assert.equal(asked, 3);
    assert.equal(f.sent.record.phase, 'done', 'completed: the result was fetched and the task finished');
    assert.equal(f.sent.live, undefined, 'no longer tracked live');
    assert.deepEqual(f.connection.watched.slice(0, 1), ['t1'], 'a push is asked for before waiting');
  });

  test('a server that names no pollInterval is polled at the default, read at each wait: a setting changed meanwhile applies to the next', async () => {
    let defaultMs = 500;
    let asked = 0;
    const f = sentTask(
      { getTask: () => (asked++, Promise.resolve(task({ pollInterval: undefined }))) },
      { task: task({ pollInterval: undefined }) },
      { defaultPollIntervalMs: () => defaultMs },
    );
    await f.sent.live!.pollOnce();
    assert.equal(asked, 1);
    await advance(499, 50);
    assert.equal(asked, 1, 'not before the default of 500 ms');
    defaultMs = 2000;
    await advance(1);
    assert.equal(asked, 2, 'the wait already set keeps its 500 ms');
    await advance(1999, 100);
    assert.equal(asked, 2, 'the next wait reads the changed default (2 s)');
    await advance(1);
    assert.equal(asked, 3);
    f.sent.live!.stop();
  });

  test('a permanent refusal ends it at once, naming the server; a task the server forgot after a restart is lost, else expired', async () => {
    const refused = sentTask({ getTask: () => Promise.reject(new ProtocolError(ErrorCode.MethodNotFound, 'no tasks/get')) });
    await refused.sent.live!.pollOnce();
    assert.equal(refused.sent.record.phase, 'error');
    assert.match(refused.sent.record.reason ?? '', /^"Server S" refused tasks\/get for this task \(JSON-RPC -32601 \(method not found\)/);

    const unknown = () => Promise.reject(new ProtocolError(ErrorCode.InvalidParams, 'unknown task'));
    const expired = sentTask({ getTask: unknown });
    await expired.sent.live!.pollOnce();
    assert.equal(expired.sent.record.phase, 'expired');
    assert.match(expired.sent.record.reason ?? '', /no longer knows this task: unknown task/);

    const lost = sentTask({ getTask: unknown });
    lost.sent.live!.resumedAfterPause = true;
    await lost.sent.live!.pollOnce();
    assert.equal(lost.sent.record.phase, 'error');
    assert.match(lost.sent.record.reason ?? '', /^Lost: "Server S" no longer knows this task/);
  });

  test('other failures are retried at the interval and end it after maxPollFailures in a row; a closed connection is told to the host', async () => {
    let asked = 0;
    const f = sentTask({ getTask: () => (asked++, Promise.reject(new Error('backend hiccup'))) }, {}, { maxPollFailures: 2 });
    await f.sent.live!.pollOnce();
    assert.equal(f.sent.record.phase, 'tracking', 'one failure: polling goes on');
    await advance(1000, 100);
    assert.equal(asked, 2);
    assert.equal(f.sent.record.phase, 'error');
    assert.equal(f.sent.record.reason, 'tasks/get failed 2 times in a row; last: backend hiccup');

    const gone = sentTask({ getTask: () => Promise.reject(new Error('x')) });
    gone.connection.state = { kind: 'error', message: 'gone' };
    await gone.sent.live!.pollOnce();
    assert.deepEqual(gone.told, ['connection lost']);
  });

  test('a task past its ttl stops as expired, saying its last status', () => {
    const f = sentTask({}, { task: task({ ttl: 500, createdAt: new Date(0).toISOString() }) });
    mock.timers.tick(501);
    f.sent.live!.afterUpdate();
    assert.equal(f.sent.record.phase, 'expired');
    assert.match(f.sent.record.reason ?? '', /outlived its ttl \(500 ms\).*last status 'working'/);
    assert.notEqual(f.sent.record.finishedAt, undefined);
  });
});
