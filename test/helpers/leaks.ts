/**
 * The leak check of the unit tests: inside a `describe`, `checkLeaks()` tracks every disposable
 * made during each test (src/core/base/lifecycle.ts) and fails the test when one of them was not
 * disposed by its end, naming where it was made. Use it in the tests of every class that owns
 * disposables (emitters, subscriptions, stores, `Disposable` subclasses). Call it after the
 * describe's own `afterEach` hooks: a hook that fails stops those after it, so the test's own
 * clean-up runs first and the check then sees what it left.
 */
import { afterEach, beforeEach } from 'node:test';
import { setDisposableTracker, type DisposableTracker, type IDisposable } from '../../src/core/base/lifecycle.js';

/** Tracks disposables from their making to their disposal, with where each was made. */
export class LeakTracker implements DisposableTracker {
  private readonly _live = new Map<IDisposable, string>();

  trackDisposable(d: IDisposable): void {
    this._live.set(d, new Error('made here').stack?.split('\n').slice(2, 9).join('\n') ?? '');
  }

  markAsDisposed(d: IDisposable): void {
    this._live.delete(d);
  }

  /** What was made and not disposed, each with where it was made. */
  leaks(): Array<{ readonly what: string; readonly where: string }> {
    return [...this._live].map(([d, where]) => ({ what: d.constructor?.name && d.constructor.name !== 'Object' ? d.constructor.name : 'a disposable', where }));
  }
}

/**
 * Inside a `describe`: each of its tests fails if a disposable it made is left undisposed.
 * Returns the tracker of the current test (for a test that checks a leak on purpose).
 */
export function checkLeaks(): { readonly current: () => LeakTracker | undefined } {
  let current: LeakTracker | undefined;
  let before: DisposableTracker | undefined;
  beforeEach(() => {
    current = new LeakTracker();
    before = setDisposableTracker(current);
  });
  afterEach(() => {
    setDisposableTracker(before);
    const leaks = current?.leaks() ?? [];
    current = undefined;
    if (leaks.length) throw new Error(`${leaks.length} disposable(s) made in this test were not disposed:\n${leaks.map((l) => `- ${l.what}, made at\n${l.where}`).join('\n')}`);
  });
  return { current: () => current };
}
