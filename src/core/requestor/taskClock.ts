/**
 * A sent task's clock: the one place its timers live — the next `tasks/get` (at the latest
 * `pollInterval`, R-GET-1) and a `tasks/result` tried again after its backoff — and when it last
 * polled, so a resume waits out what is left of the interval — and how long a resumed result
 * stream may still take once its task ended (wire/resultStream.ts). Owned by its {@link SentTask}
 * (sentTask.ts), stopped whenever tracking stops; nothing else sets a timer for a task.
 */
import type { IDisposable } from '../base/lifecycle.js';

/** What a poll timer tells when it fires (the task's drive). */
export interface Poller {
  poll(): void;
}

function firePoll(clock: TaskClock): void {
  (clock as unknown as { _fired(): void })._fired();
}

export class TaskClock implements IDisposable {
  private _poll: NodeJS.Timeout | undefined = undefined;
  /** Whom the poll timer tells: set with it; one timer callback for every clock (no closure per poll or per task; bench: requestor host CPU). */
  private _poller: Poller | undefined = undefined;
  private _resultRetry: NodeJS.Timeout | undefined = undefined;
  private _resumeBound: NodeJS.Timeout | undefined = undefined;
  /** When the last `tasks/get` went out (this session). */
  private _lastPollAt: number | undefined = undefined;

  constructor(private readonly _time: { now(): number }) {}

  /** Whether a poll is due (its timer set). */
  get pollDue(): boolean {
    return this._poll !== undefined;
  }

  /** Whether a `tasks/result` waits for its backoff. */
  get resultRetryDue(): boolean {
    return this._resultRetry !== undefined;
  }

  /** Calls `poller.poll()` in `delayMs`, instead of any poll due before. */
  pollIn(delayMs: number, poller: Poller): void {
    if (this._poll) clearTimeout(this._poll);
    this._poller = poller;
    this._poll = setTimeout(firePoll, delayMs, this);
  }

  /** The poll timer fired. */
  private _fired(): void {
    this._poll = undefined;
    this._poller?.poll();
  }

  /** No poll is due any more. */
  stopPolling(): void {
    if (this._poll) clearTimeout(this._poll);
    this._poll = undefined;
    this._poller = undefined;
  }

  /** A poll goes out now. */
  polled(): void {
    this._lastPollAt = this._time.now();
  }

  /** How long since the last poll of this session (Infinity before the first). */
  sinceLastPoll(): number {
    return this._lastPollAt === undefined ? Infinity : this._time.now() - this._lastPollAt;
  }

  /** Calls `fetch` in `delayMs` (a `tasks/result` tried again). */
  retryResultIn(delayMs: number, fetch: () => void): void {
    if (this._resultRetry) clearTimeout(this._resultRetry);
    this._resultRetry = setTimeout(() => {
      this._resultRetry = undefined;
      fetch();
    }, delayMs);
  }

  /** No `tasks/result` waits to be tried again (Retrieve Result asks at once). */
  stopResultRetry(): void {
    if (this._resultRetry) clearTimeout(this._resultRetry);
    this._resultRetry = undefined;
  }

  /** Calls `giveUp` in `delayMs` unless already due: a resumed result stream's last chance to carry the result. */
  boundResumeIn(delayMs: number, giveUp: () => void): void {
    if (this._resumeBound) return;
    this._resumeBound = setTimeout(() => {
      this._resumeBound = undefined;
      giveUp();
    }, delayMs);
  }

  /** The resumed stream settled: no bound runs. */
  stopResumeBound(): void {
    if (this._resumeBound) clearTimeout(this._resumeBound);
    this._resumeBound = undefined;
  }

  /** Tracking stopped: no timer of the task runs (when it last polled is kept for a resume). */
  stop(): void {
    this.stopPolling();
    this.stopResultRetry();
    this.stopResumeBound();
  }

  dispose(): void {
    this.stop();
  }
}
