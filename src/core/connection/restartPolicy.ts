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
  | { readonly giveUp: false; readonly failures: number; readonly delayMs: number }
  | { readonly giveUp: true; readonly failures: number };

/**
 * The crashes of one server within the policy's window, and the backoff that follows from them:
 * the n-th crash within `windowMs` restarts after `baseDelayMs * 2^(n-1)` (at most `maxDelayMs`);
 * the `maxCrashes`-th gives up.
 */
export class CrashHistory {
  private _times: number[] = [];

  constructor(readonly policy: RestartPolicy) {}

  /** Records a crash at `now` (ms) and says what follows. */
  record(now: number): RestartDecision {
    this._times = this._times.filter((t) => now - t < this.policy.windowMs);
    this._times.push(now);
    const failures = this._times.length;
    if (failures >= this.policy.maxCrashes) return { giveUp: true, failures };
    return { giveUp: false, failures, delayMs: Math.min(this.policy.baseDelayMs * 2 ** (failures - 1), this.policy.maxDelayMs) };
  }

  /** Forgets every crash (a stop by the user). */
  reset(): void {
    this._times = [];
  }
}
