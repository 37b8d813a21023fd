/**
 * Minimal, dependency-free equivalents of VS Code's `Disposable`, `EventEmitter` and
 * `DisposableStore`, so the core can expose events without importing `vscode`.
 * The shapes match VS Code's, so a core `Event<T>` can be handed to UI code as is.
 */

/** Something that holds resources until `dispose()` is called. */
export interface IDisposable {
  dispose(): void;
}

/** A subscribable event, called with a listener; returns the subscription. */
export type Event<T> = (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: IDisposable[]) => IDisposable;

/** Wraps a function as a disposable that runs it once. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose: () => {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

/** Owns a set of disposables; disposing the store disposes them all (once). */
export class DisposableStore implements IDisposable {
  private readonly _items = new Set<IDisposable>();
  private _disposed = false;

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

/** Fires events to its listeners. A listener that throws does not stop the others. */
export class Emitter<T> implements IDisposable {
  private _listeners: Array<(e: T) => unknown> = [];
  private _disposed = false;
  private _event?: Event<T>;

  /** Called with any error a listener throws (default: console.error). */
  static onListenerError: (e: unknown) => void = (e) => console.error('[mcp-tasks] listener failed:', e);

  get event(): Event<T> {
    this._event ??= (listener, thisArgs, disposables) => {
      const bound = thisArgs ? listener.bind(thisArgs) : listener;
      if (this._disposed) return toDisposable(() => undefined);
      this._listeners.push(bound);
      const sub = toDisposable(() => {
        this._listeners = this._listeners.filter((l) => l !== bound);
      });
      disposables?.push(sub);
      return sub;
    };
    return this._event;
  }

  get hasListeners(): boolean {
    return this._listeners.length > 0;
  }

  fire(e: T): void {
    if (this._disposed) return;
    for (const l of this._listeners) {
      try {
        l(e);
      } catch (err) {
        Emitter.onListenerError(err);
      }
    }
  }

  dispose(): void {
    this._disposed = true;
    this._listeners = [];
  }
}

/** Resolves when `event` fires with a value matching `predicate`, or rejects on abort. */
export function waitForEvent<T>(event: Event<T>, predicate: (e: T) => boolean, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      sub.dispose();
      reject(signal?.reason);
    };
    const sub = event((e) => {
      if (predicate(e)) {
        sub.dispose();
        signal?.removeEventListener('abort', onAbort);
        resolve(e);
      }
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
