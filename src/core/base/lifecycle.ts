/**
 * Disposables as VS Code has them (`IDisposable`, `toDisposable`, `DisposableStore`, and a
 * `Disposable` base class that owns what it `_register`s), without importing `vscode`, so the core
 * can own resources the same way and hand them to UI code as they are.
 *
 * Every disposable made here can be tracked (`setDisposableTracker`): the tests install a tracker
 * and fail when something made during a test was never disposed (test/helpers/leaks.ts).
 */

/** Something that holds resources until `dispose()` is called. */
export interface IDisposable {
  dispose(): void;
}

/** Told of every disposable made here and of each one's disposal (tests only). */
export interface DisposableTracker {
  trackDisposable(d: IDisposable): void;
  markAsDisposed(d: IDisposable): void;
}

let tracker: DisposableTracker | undefined;

/** Installs (or, with undefined, removes) the tracker; returns the one it replaces. */
export function setDisposableTracker(t: DisposableTracker | undefined): DisposableTracker | undefined {
  const before = tracker;
  tracker = t;
  return before;
}

/** Tells the tracker about a new disposable; returns it. */
export function trackDisposable<T extends IDisposable>(d: T): T {
  tracker?.trackDisposable(d);
  return d;
}

/** Tells the tracker a disposable was disposed. */
export function markAsDisposed(d: IDisposable): void {
  tracker?.markAsDisposed(d);
}

/** Wraps a function as a disposable that runs it once. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  const d: IDisposable = {
    dispose: () => {
      if (done) return;
      done = true;
      markAsDisposed(d);
      fn();
    },
  };
  return trackDisposable(d);
}

/** Owns a set of disposables; disposing the store disposes them all (once, last added first). */
export class DisposableStore implements IDisposable {
  private readonly _items = new Set<IDisposable>();
  private _disposed = false;

  constructor() {
    trackDisposable(this);
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Adds `d`; if the store is already disposed, `d` is disposed at once. */
  add<T extends IDisposable>(d: T): T {
    if (this._disposed) {
      d.dispose();
    } else {
      this._items.add(d);
    }
    return d;
  }

  /** Removes and disposes `d`. */
  delete(d: IDisposable): void {
    if (this._items.delete(d)) {
      d.dispose();
    }
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    markAsDisposed(this);
    const errors: unknown[] = [];
    for (const d of [...this._items].reverse()) {
      try {
        d.dispose();
      } catch (e) {
        errors.push(e);
      }
    }
    this._items.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several disposables failed');
  }
}

/**
 * A class that owns disposables (as VS Code's `Disposable`): what it `_register`s is disposed with
 * it, last registered first. Subclasses that override `dispose` call `super.dispose()`.
 */
export abstract class Disposable implements IDisposable {
  private readonly _store = new DisposableStore();

  constructor() {
    trackDisposable(this);
  }

  /** Whether this has been disposed. */
  protected get _isDisposed(): boolean {
    return this._store.isDisposed;
  }

  /** Owns `d`: it is disposed with this (at once if this is disposed already). */
  protected _register<T extends IDisposable>(d: T): T {
    if ((d as unknown) === this) throw new Error('A disposable cannot own itself');
    return this._store.add(d);
  }

  dispose(): void {
    markAsDisposed(this);
    this._store.dispose();
  }
}
