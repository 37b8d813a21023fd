/** Disposables, their owners and the leak check (src/core/base/lifecycle.ts, event.ts, test/helpers/leaks.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Emitter } from '../../../src/core/base/event.js';
import { Disposable, DisposableStore, setDisposableTracker, toDisposable } from '../../../src/core/base/lifecycle.js';
import { checkLeaks, LeakTracker } from '../../helpers/leaks.js';

class Owner extends Disposable {
  readonly events = this._register(new Emitter<number>());
  readonly order: string[] = [];
  constructor() {
    super();
    this._register(toDisposable(() => this.order.push('first')));
    this._register(toDisposable(() => this.order.push('second')));
  }
  get disposed(): boolean {
    return this._isDisposed;
  }
  adopt<T extends { dispose(): void }>(d: T): T {
    return this._register(d);
  }
}

describe('Disposable', () => {
  checkLeaks();

  it('disposes what it registered, last first, once; what it registers after that is disposed at once', () => {
    const o = new Owner();
    o.dispose();
    o.dispose();
    assert.deepEqual(o.order, ['second', 'first']);
    assert.equal(o.disposed, true);
    let late = 0;
    o.adopt(toDisposable(() => late++));
    assert.equal(late, 1);
  });

  it('an emitter disposed with its owner ends its subscriptions', () => {
    const o = new Owner();
    const seen: number[] = [];
    o.events.event((n) => seen.push(n));
    o.events.fire(1);
    o.dispose();
    o.events.fire(2);
    assert.deepEqual(seen, [1]);
  });

  it('cannot own itself', () => {
    const o = new Owner();
    assert.throws(() => o.adopt(o), /cannot own itself/);
    o.dispose();
  });
});

describe('the leak check', () => {
  it('names what a test made and left undisposed, and nothing once all is disposed', () => {
    const tracker = new LeakTracker();
    const before = setDisposableTracker(tracker);
    try {
      const store = new DisposableStore();
      const emitter = new Emitter<void>();
      const sub = emitter.event(() => undefined);
      store.add(toDisposable(() => undefined));
      assert.deepEqual(
        tracker.leaks().map((l) => l.what),
        ['DisposableStore', 'Emitter', 'a disposable', 'a disposable'],
      );
      assert.match(tracker.leaks()[0]!.where, /lifecycle\.test\.ts/);
      sub.dispose();
      store.dispose();
      emitter.dispose();
      assert.deepEqual(tracker.leaks(), []);
    } finally {
      setDisposableTracker(before);
    }
  });
});
