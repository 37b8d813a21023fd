/**
 * The requests of one tracking session (requestScope.ts): each gets its own signal, aborting the
 * scope aborts only the requests still pending (R-CANCEL: an abandoned tools/call; a tasks/result
 * when tracking stops), and a request answered before never sees an abort (the SDK would send
 * notifications/cancelled for it).
 */
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestScope } from '../../../src/core/requestor/requestScope.js';

function pendingRequest() {
  let signal!: AbortSignal;
  let answer!: (v: string) => void;
  const request = (s: AbortSignal) => {
    signal = s;
    return new Promise<string>((resolve, reject) => {
      answer = resolve;
      s.addEventListener('abort', () => reject(s.reason), { once: true });
    });
  };
  return { request, signal: () => signal, answer: (v: string) => answer(v) };
}

describe('RequestScope', () => {
  test('abort() aborts the pending requests with its reason, not those already answered', async () => {
    const scope = new RequestScope();
    const done = pendingRequest();
    const open = pendingRequest();
    const first = scope.run(done.request);
    const second = scope.run(open.request);
    assert.notEqual(done.signal(), open.signal(), 'one signal per request');
    done.answer('ok');
    assert.equal(await first, 'ok');
    const reason = new Error('cancelled by the user');
    scope.abort(reason);
    assert.equal(scope.aborted, true);
    await assert.rejects(second, (e) => e === reason);
    assert.equal(open.signal().aborted, true);
    assert.equal(done.signal().aborted, false, 'an answered request is never aborted afterwards');
  });

  test('stop() aborts pending requests with "stopped tracking"; a request after it starts aborted', async () => {
    const scope = new RequestScope();
    const open = pendingRequest();
    const pending = scope.run(open.request);
    scope.stop();
    await assert.rejects(pending, /stopped tracking/);
    let seen: AbortSignal | undefined;
    await scope.run(async (s) => {
      seen = s;
      return 1;
    });
    assert.equal(seen?.aborted, true);
    assert.match(String((seen?.reason as Error).message), /stopped tracking/);
  });

  test('a request that throws at once is not kept as pending', () => {
    const scope = new RequestScope();
    assert.throws(() =>
      scope.run(() => {
        throw new Error('not connected');
      }),
    );
    const open = pendingRequest();
    void scope.run(open.request).catch(() => undefined);
    scope.abort(new Error('x'));
    assert.equal(open.signal().aborted, true);
  });

  test('reuseSignal: a settled request\'s controller serves the next request; one still pending never does', async () => {
    const scope = new RequestScope();
    const first = pendingRequest();
    const pendingOne = scope.run(first.request, { reuseSignal: true });
    const meanwhile = pendingRequest();
    const meanwhileOne = scope.run(meanwhile.request, { reuseSignal: true });
    assert.notEqual(first.signal(), meanwhile.signal(), 'two requests in flight: two signals');
    first.answer('ok');
    assert.equal(await pendingOne, 'ok');
    // The request's own listener is still on its signal (pendingRequest never removes it): not handed out.
    const after = pendingRequest();
    const afterOne = scope.run(after.request, { reuseSignal: true });
    assert.notEqual(after.signal(), first.signal());
    meanwhile.answer('ok');
    after.answer('ok');
    await Promise.all([meanwhileOne, afterOne]);
  });

  test('reuseSignal: a request that leaves its signal clean gives it to a later request of another scope, which the first scope\'s abort never reaches', async () => {
    const a = new RequestScope();
    let used!: AbortSignal;
    await a.run(async (s) => {
      used = s;
      return 'answered';
    }, { reuseSignal: true });
    const b = new RequestScope();
    let next!: AbortSignal;
    const open = b.run(
      (s) =>
        new Promise<string>((_, reject) => {
          next = s;
          s.addEventListener('abort', () => reject(s.reason), { once: true });
        }),
      { reuseSignal: true },
    );
    assert.equal(next, used, 'the settled request\'s controller is used again');
    a.abort(new Error('the first call is cancelled'));
    assert.equal(next.aborted, false, 'aborting the first scope does not reach the request that took its controller');
    const why = new Error('the second call is cancelled');
    b.abort(why);
    await assert.rejects(open, (e) => e === why);
  });

  test('without reuseSignal a settled request\'s controller is not given back', async () => {
    const scope = new RequestScope();
    let kept!: AbortSignal;
    await scope.run(async (s) => {
      kept = s;
      return 'answered';
    });
    let next!: AbortSignal;
    await scope.run(async (s) => {
      next = s;
      return 'answered';
    }, { reuseSignal: true });
    assert.notEqual(next, kept);
  });

  test('follow(): the caller\'s signal aborts the pending requests while the scope lives, and is let go when it stops or aborts', async () => {
    const caller = new AbortController();
    const scope = new RequestScope();
    scope.follow(caller.signal);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
    const open = pendingRequest();
    const pending = scope.run(open.request);
    const reason = new Error('the caller gave up');
    caller.abort(reason);
    await assert.rejects(pending, (e) => e === reason);
    assert.equal(scope.aborted, true);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);

    // One long-lived signal given to many scopes: each scope that stops (a finished call) or is aborted leaves nothing on it.
    const longLived = new AbortController();
    const scopes = Array.from({ length: 5 }, () => new RequestScope());
    for (const s of scopes) s.follow(longLived.signal);
    assert.equal(getEventListeners(longLived.signal, 'abort').length, 5);
    scopes[0]!.stop();
    scopes[1]!.abort(new Error('cancelled by the user'));
    assert.equal(getEventListeners(longLived.signal, 'abort').length, 3);
    for (const s of scopes.slice(2)) s.stop();
    assert.equal(getEventListeners(longLived.signal, 'abort').length, 0);
    const after = pendingRequest();
    const later = new RequestScope();
    const laterRequest = later.run(after.request);
    longLived.abort(new Error('long after'));
    assert.equal(after.signal().aborted, false, 'a scope that never followed the signal is not reached by it');
    after.answer('ok');
    assert.equal(await laterRequest, 'ok');
  });

  test('follow() of an already aborted signal aborts the scope with its reason', async () => {
    const reason = new Error('aborted before the call');
    const scope = new RequestScope();
    scope.follow(AbortSignal.abort(reason));
    assert.equal(scope.aborted, true);
    let given!: AbortSignal;
    await scope.run(async (s) => {
      given = s;
      return 'not sent';
    });
    assert.equal(given.aborted, true, 'a request after it starts aborted');
    assert.equal(given.reason, reason);
  });
});
