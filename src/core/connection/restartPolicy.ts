/** How a crashing server is restarted. */
export interface RestartPolicy {
  /** Crashes tolerated within `windowMs` before giving up. */
  readonly maxCrashes: number;
  readonly windowMs: number;
  /** Delay before the n-th restart: `baseDelayMs * 2^(n-1)`, at most `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { maxCrashes: 5, windowMs: 5 * 60_000, baseDelayMs: 1000, maxDelayMs: 30_000 };


/** What to do after one more crash: restart after `delayMs`, or give up. */
export type RestartDecision =
  | { readonly giveUp: false; readonly failures: number; readonly inARow: number; readonly delayMs: number }
  | { readonly giveUp: true; readonly failures: number };

/**
 * The crashes of one server within the policy's window, and the backoff that follows from them:
 * the n-th failure since the server was last up restarts after `baseDelayMs * 2^(n-1)` (at most
 * `maxDelayMs`); the `maxCrashes`-th within `windowMs` gives up, unless told to keep trying.
 */
export class CrashHistory {
  private _times: number[] = [];
  /** Failures since the server was last up. */
  private _inARow = 0;

  constructor(readonly policy: RestartPolicy) {}

  /**
   * Records a crash at `now` (ms) and says what follows. With `keepTrying` (a server that may come
   * back by itself, or one the user has work on) it never gives up: the delay stops growing at
   * `maxDelayMs` and the tries go on.
   */
  record(now: number, keepTrying = false): RestartDecision {
    this._times = this._times.filter((t) => now - t < this.policy.windowMs);
    this._times.push(now);
    this._inARow++;
    const failures = this._times.length;
    if (failures >= this.policy.maxCrashes && !keepTrying) return { giveUp: true, failures };
    // The delay grows with the failures since the server was last up, whatever the window forgot.
    const n = Math.max(failures, this._inARow);
    return { giveUp: false, failures, inARow: this._inARow, delayMs: Math.min(this.policy.baseDelayMs * 2 ** Math.min(n - 1, 30), this.policy.maxDelayMs) };
  }

  /** The server is up again: the next failure starts the delays over (the window still counts crashes). */
  succeeded(): void {
    this._inARow = 0;
  }

  /** Forgets every crash (a stop by the user). */
  reset(): void {
    this._times = [];
    this._inARow = 0;
  }
}
