/**
 * The abort side of a received task's work (serverTasks.ts `run`), with its `AbortController`
 * made only when the work first asks for the signal. A responder that answers at once (a sampler
 * that never looks at the signal) then costs no controller, signal or abort event per task — an
 * `AbortController` per task was the receiver's largest own cost on the CreateTaskResult path
 * (bench: receiver CreateTaskResult latency). Asked for after an abort, the signal is already aborted with the same reason.
 */
export class WorkAbort {
  private _controller?: AbortController;
  private _aborted = false;
  private _reason: unknown;

  /** The work's signal (made on first use). */
  get signal(): AbortSignal {
    if (!this._controller) {
      this._controller = new AbortController();
      if (this._aborted) this._controller.abort(this._reason);
    }
    return this._controller.signal;
  }

  /** Aborts the signal (now, or when it is first asked for); only the first reason counts. */
  abort(reason: unknown): void {
    if (this._aborted) return;
    this._aborted = true;
    this._reason = reason;
    this._controller?.abort(reason);
  }
}
