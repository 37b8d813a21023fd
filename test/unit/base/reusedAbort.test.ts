/** AbortControllers used again once their request settled (base/reusedAbort.ts): only clean ones. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { giveBackAbortController, takeAbortController } from '../../../src/core/base/reusedAbort.js';

describe('reusedAbort', () => {
  it('hands out again a controller given back never aborted and with no listener', () => {
    const c = takeAbortController();
    const onAbort = () => undefined;
    c.signal.addEventListener('abort', onAbort, { once: true });
    c.signal.removeEventListener('abort', onAbort);
    giveBackAbortController(c);
    assert.equal(takeAbortController(), c);
  });

  it('never hands out one that was aborted', () => {
    const c = takeAbortController();
    c.abort(new Error('cancelled'));
    giveBackAbortController(c);
    const next = takeAbortController();
    assert.notEqual(next, c);
    assert.equal(next.signal.aborted, false);
  });

  it('never hands out one something still listens on (a listener, or onabort)', () => {
    const listened = takeAbortController();
    let fired = 0;
    listened.signal.addEventListener('abort', () => fired++);
    giveBackAbortController(listened);
    const handled = takeAbortController();
    handled.signal.onabort = () => fired++;
    giveBackAbortController(handled);
    const next = takeAbortController();
    assert.notEqual(next, listened);
    assert.notEqual(next, handled);
    next.abort(new Error('another request'));
    assert.equal(fired, 0, 'aborting a later request reaches no listener of an earlier one');
  });
});
