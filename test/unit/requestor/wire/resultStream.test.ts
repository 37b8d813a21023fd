/**
 * Resuming a cut `tasks/result` stream (wire/resultStream.ts): the event id kept is the server's
 * text, kept only bounded and printable (stored records are checked the same way on load); a GET
 * carrying a watched `Last-Event-ID` not answered with an event stream is a refusal; a resumed
 * session's request ids start after any earlier window's (sessionKeeper.ts); a request that
 * outlives the window is not aborted when the window goes (requestScope.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RESUMPTION_TOKEN_CHARS, ResumeWatch, keepableToken } from '../../../../src/core/requestor/wire/resultStream.js';
import { readStoredTasks } from '../../../../src/core/requestor/trackerStore.js';
import { RequestScope } from '../../../../src/core/requestor/requestScope.js';
import { resumedRequestIdFloor } from '../../../../src/core/connection/sessionKeeper.js';
import { T0, storedTask } from '../../../helpers/storedTasks.js';

describe('the kept event id', () => {
  test('kept only when it is printable ASCII within the bound', () => {
    assert.ok(keepableToken('5147b414-aa31-4e8d-845e-8658e7a5e4e8/10'));
    assert.ok(keepableToken('x'.repeat(MAX_RESUMPTION_TOKEN_CHARS)));
    assert.ok(!keepableToken('x'.repeat(MAX_RESUMPTION_TOKEN_CHARS + 1)));
    assert.ok(!keepableToken(''));
    assert.ok(!keepableToken('a\r\nx-injected: 1'), 'no line break: it is sent back as a header value');
    assert.ok(!keepableToken('événement'));
    assert.ok(!keepableToken(42));
  });

  test('a stored record whose event id is not one the host would keep is dropped on load, others kept', () => {
    const ok = { ...storedTask(1, { phase: 'paused', sentAt: T0 }), resultStream: { eventId: 'stream-1/7', requestId: 4 } };
    const long = { ...storedTask(2, { phase: 'paused', sentAt: T0 }), resultStream: { eventId: 'x'.repeat(MAX_RESUMPTION_TOKEN_CHARS + 1), requestId: 4 } };
    const badId = { ...storedTask(4, { phase: 'paused', sentAt: T0 }), resultStream: { eventId: 'ok', requestId: -1 } };
    const broken = { ...storedTask(3, { phase: 'paused', sentAt: T0 }), resultStream: { eventId: 'a\nb', requestId: 4 } };
    const { tasks, dropped } = readStoredTasks(JSON.stringify({ version: 3, tasks: [ok, long, broken, badId] }));
    assert.equal(dropped, 3);
    assert.equal(tasks.length, 1);
    assert.deepEqual(tasks[0]!.resultStream, { eventId: 'stream-1/7', requestId: 4 });
  });
});

describe('ResumeWatch', () => {
  const answering = (status: number, type: string) => async () => new Response(status === 200 ? 'data: \n\n' : 'no', { status, headers: { 'content-type': type } });
  const get = (token: string) => ({ method: 'GET', headers: { 'last-event-id': token } });

  for (const [status, type, reason] of [
    [400, 'application/json', /answered the resume 400/],
    [405, 'text/plain', /answered the resume 405/],
    [200, 'application/json', /answered the resume with application\/json/],
  ] as const) {
    test(`a resume answered ${status} ${type} is a refusal`, async () => {
      const watch = new ResumeWatch();
      const refused = watch.refusal('t1', new AbortController().signal);
      await watch.wrapFetch(answering(status, type))('http://x/mcp', get('t1'));
      assert.match(await refused, reason);
    });
  }

  test('an event stream is no refusal; nor is a GET with another id, nor a POST', async () => {
    const watch = new ResumeWatch();
    let refused: string | undefined;
    void watch.refusal('t1', new AbortController().signal).then((r) => (refused = r));
    await watch.wrapFetch(answering(200, 'text/event-stream'))('http://x/mcp', get('t1'));
    await watch.wrapFetch(answering(400, 'application/json'))('http://x/mcp', get('t2'));
    await watch.wrapFetch(answering(400, 'application/json'))('http://x/mcp', { method: 'POST', headers: { 'last-event-id': 't1' } });
    await Promise.resolve();
    assert.equal(refused, undefined);
  });

  test('a resume that cannot reach the server is a refusal (and the fetch still fails)', async () => {
    const watch = new ResumeWatch();
    const refused = watch.refusal('t1', new AbortController().signal);
    const failing = async (): Promise<Response> => {
      throw new TypeError('fetch failed');
    };
    await assert.rejects(watch.wrapFetch(failing)('http://x/mcp', get('t1')), /fetch failed/);
    assert.match(await refused, /could not reach the server \(fetch failed\)/);
  });
});

describe('a resumed session and the window that goes', () => {
  test("a resumed session's request ids start after those of any earlier window, within safe integers", () => {
    const earlier = resumedRequestIdFloor(Date.parse('2026-11-28T04:00:00Z'));
    const later = resumedRequestIdFloor(Date.parse('2026-11-28T04:00:01Z'));
    assert.ok(later - earlier >= 1000, 'a window living one second may send a thousand requests before the next one collides');
    assert.ok(Number.isSafeInteger(resumedRequestIdFloor(Date.parse('2200-01-01T00:00:00Z')) + 2 ** 31));
  });

  test('stop(windowGoing) leaves a request that outlives the window unaborted (no cancellation reaches the server); stop() aborts it', () => {
    const scope = new RequestScope();
    const signals: AbortSignal[] = [];
    const request = (s: AbortSignal) => (signals.push(s), new Promise<never>(() => undefined));
    void scope.run(request, { outlivesWindow: true });
    void scope.run(request);
    scope.stop(true);
    assert.deepEqual(
      signals.map((s) => s.aborted),
      [false, true],
    );
    const other = new RequestScope();
    void other.run(request, { outlivesWindow: true });
    other.stop();
    assert.equal(signals[2]!.aborted, true);
  });
});
