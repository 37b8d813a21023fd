/**
 * Events as VS Code has them (`Event<T>`, an `Emitter<T>` that fires it), without importing
 * `vscode`: a core `Event<T>` can be handed to UI code as it is.
 */
import { markAsDisposed, toDisposable, trackDisposable, type IDisposable } from './lifecycle.js';

/** A subscribable event, called with a listener; returns the subscription. */
export type Event<T> = (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: IDisposable[]) => IDisposable;

/** Fires events to its listeners. A listener that throws does not stop the others. */
export class Emitter<T> implements IDisposable {
  private _listeners: Array<(e: T) => unknown> = [];
  /** The subscriptions still open: disposed with the emitter (nothing is left to listen to). */
  private readonly _subscriptions = new Set<IDisposable>();
  private _disposed = false;
  private _event?: Event<T>;

  /** Called with any error a listener throws (default: console.error). */
  static onListenerError: (e: unknown) => void = (e) => console.error('[mcp-tasks] listener failed:', e);

  constructor() {
    trackDisposable(this);
  }

  get event(): Event<T> {
    this._event ??= (listener, thisArgs, disposables) => {
      const bound = thisArgs ? listener.bind(thisArgs) : listener;
      if (this._disposed) return toDisposable(() => undefined);
      this._listeners.push(bound);
      const sub = toDisposable(() => {
        this._subscriptions.delete(sub);
        this._listeners = this._listeners.filter((l) => l !== bound);
      });
      this._subscriptions.add(sub);
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
    if (this._disposed) return;
    this._disposed = true;
    markAsDisposed(this);
    this._listeners = [];
    for (const sub of [...this._subscriptions]) sub.dispose();
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
