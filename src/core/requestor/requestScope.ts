/**
 * The requests of one tracking session of a sent task (`tools/call`, `tasks/result`,
 * `tasks/cancel`, `tasks/update`, input responses), each with its own AbortSignal, all aborted
 * together when tracking stops or the user abandons the call.
 *
 * One AbortController per request, and none for the session: a session's requests are aborted one
 * by one (a request run with `outlivesWindow` is left alone when the window goes), and a parent
 * signal linked to a child per request cost an EventTarget, two listeners and an abort event per
 * task — most of the tracker's own CPU (bench: requestor host CPU). Stopping a session with no
 * request in flight (the usual case: a finished task) touches no signal at all. A request run with
 * `reuseSignal` gives its controller back once it settles, to serve a later request if it was never
 * aborted and nothing listens on it (base/reusedAbort.ts).
 */
import { giveBackAbortController, takeAbortController } from '../base/reusedAbort.js';

export class RequestScope {
  private readonly _pending = new Set<AbortController>();
  /** Requests the server should go on answering when the window goes (see {@link stop}). */
  private readonly _outliveWindow = new WeakSet<AbortController>();
  private _aborted = false;
  private _reason: unknown;
  /** Set by {@link stop}: the reason is made only if a request needs it. */
  private _stopped = false;
  /** Cuts the link to the caller's signal ({@link follow}). */
  private _unfollow: (() => void) | undefined = undefined;

  /** Whether {@link abort} or {@link stop} was called. */
  get aborted(): boolean {
    return this._aborted;
  }

  /**
   * Runs one request with its own signal, aborted with the scope while the request is pending;
   * after the scope was aborted, the request gets an already aborted signal. `reuseSignal`: the
   * request hands its signal to the SDK alone, which leaves nothing on it once the request settles
   * (an `AbortSignal.any` made of it would stay tied to it, unseen): its controller may serve a
   * later request.
   */
  run<T>(request: (signal: AbortSignal) => Promise<T>, options?: { readonly outlivesWindow?: boolean; readonly reuseSignal?: boolean }): Promise<T> {
    if (this._aborted) return request(AbortSignal.abort(this._reasonNow()));
    const reuse = options?.reuseSignal === true;
    const controller = reuse ? takeAbortController() : new AbortController();
    this._pending.add(controller);
    if (options?.outlivesWindow) this._outliveWindow.add(controller);
    let pending: Promise<T>;
    try {
      pending = request(controller.signal);
    } catch (e) {
      this._settled(controller, reuse);
      throw e;
    }
    return pending.finally(() => this._settled(controller, reuse));
  }

  /** `controller`'s request settled: no longer aborted with the scope; given back when `reuse`. */
  private _settled(controller: AbortController, reuse: boolean): void {
    this._pending.delete(controller);
    if (!reuse) return;
    this._outliveWindow.delete(controller);
    giveBackAbortController(controller);
  }

  /**
   * Aborts the scope when the caller's `signal` aborts, until the scope ends. A caller may give one
   * signal to many calls and keep it long after they end: the link is cut when the scope is
   * aborted or stopped, so a finished call leaves nothing on that signal.
   */
  follow(signal: AbortSignal): void {
    if (this._aborted) return;
    if (signal.aborted) return this.abort(signal.reason);
    this._unfollow?.();
    const onAbort = () => this.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this._unfollow = () => signal.removeEventListener('abort', onAbort);
  }

  /** Aborts every pending request with `reason`, and every later one. */
  abort(reason: unknown): void {
    if (this._aborted) return;
    this._aborted = true;
    this._reason = reason;
    this._cutFollow();
    this._abortPending();
  }

  /**
   * Tracking stopped: like {@link abort} with "stopped tracking". `windowGoing` (a reload, the
   * window closing): a request run with `outlivesWindow` is left alone, so no cancellation reaches
   * the server: the transport's close ends it here, and the server goes on (a `tasks/result` whose
   * stream the next window resumes: wire/resultStream.ts).
   */
  stop(windowGoing = false): void {
    if (this._aborted) return;
    this._aborted = true;
    this._stopped = true;
    this._cutFollow();
    if (windowGoing) for (const c of this._pending) if (this._outliveWindow.has(c)) this._pending.delete(c);
    this._abortPending();
  }

  private _cutFollow(): void {
    const unfollow = this._unfollow;
    if (!unfollow) return;
    this._unfollow = undefined;
    unfollow();
  }

  private _reasonNow(): unknown {
    if (this._stopped) {
      this._stopped = false;
      this._reason = new Error('stopped tracking');
    }
    return this._reason;
  }

  private _abortPending(): void {
    if (this._pending.size === 0) return;
    const reason = this._reasonNow();
    const pending = [...this._pending];
    this._pending.clear();
    for (const c of pending) c.abort(reason);
  }
}
