/** A controller aborted with the first of its sources, linked while its store lives (base/linkedAbort.ts); and stackless reasons (base/errors.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reasonError } from '../../../src/core/base/errors.js';
import { DisposableStore } from '../../../src/core/base/lifecycle.js';
import { linkedAbort } from '../../../src/core/base/linkedAbort.js';

describe('linkedAbort', () => {
  it('aborts with the reason of the first source to abort, once, and unlinks from the others', () => {
    const store = new DisposableStore();
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedAbort(store, a.signal, undefined, b.signal);
    let fired = 0;
    linked.signal.addEventListener('abort', () => fired++);
    assert.equal(linked.signal.aborted, false);
    const why = new Error('request ended');
    b.abort(why);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, why);
    a.abort(new Error('later'));
    assert.equal(linked.signal.reason, why, 'the first reason stays');
    assert.equal(fired, 1);
    store.dispose();
  });

  it('is aborted at once when a source already is, with its reason', () => {
    const store = new DisposableStore();
    const done = AbortSignal.abort('gone');
    const linked = linkedAbort(store, new AbortController().signal, done);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, 'gone');
    store.dispose();
  });

  it('its owner may abort it itself; the sources are not touched', () => {
    const store = new DisposableStore();
    const source = new AbortController();
    const linked = linkedAbort(store, source.signal);
    linked.abort('a request of the round failed');
    assert.equal(linked.signal.reason, 'a request of the round failed');
    assert.equal(source.signal.aborted, false);
    store.dispose();
  });

  it('once its store is disposed, a source that aborts no longer reaches it (its listener is gone with the store)', () => {
    const store = new DisposableStore();
    const source = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = source.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      add(...args);
    }) as AbortSignal['addEventListener'];
    signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
      removed++;
      remove(...args);
    }) as AbortSignal['removeEventListener'];
    const linked = linkedAbort(store, signal);
    assert.equal(added, 1);
    store.dispose();
    assert.equal(removed, 1);
    source.abort('after the question');
    assert.equal(linked.signal.aborted, false);
  });

  it('with no source, a controller of its own', () => {
    const store = new DisposableStore();
    const linked = linkedAbort(store, undefined);
    assert.equal(linked.signal.aborted, false);
    store.dispose();
  });
});

describe('reasonError', () => {
  it('is an Error with the message and no stack frames, and leaves the stack limit as it was', () => {
    const before = Error.stackTraceLimit;
    const e = reasonError('it ended');
    assert.ok(e instanceof Error);
    assert.equal(e.message, 'it ended');
    assert.equal((e.stack ?? '').split('\n').filter((l) => l.trim().startsWith('at ')).length, 0, e.stack);
    assert.equal(Error.stackTraceLimit, before);
    assert.ok((new Error('x').stack ?? '').includes('at '), 'ordinary errors keep their stacks');
  });
});
