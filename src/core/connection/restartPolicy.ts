/** How a crashing server is restarted: the policy, the crash history it judges, and the timer of the next try. */
import { Disposable, toDisposable } from '../base/lifecycle.js';

/** How a crashing server is restarted. */
export interface RestartPolicy {
  /** Crashes tolerated within `windowMs` before giving up. */
  readonly maxCrashes: number;
  readonly windowMs: number;
  /** Delay before the n-th restart: `baseDelayMs * 2^(n-1)`, at most `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /**
   * How long a server must stay up before its next crash starts the delays over. A server that
   * comes up and crashes again sooner keeps the delay it had reached, so one that crashes a few
   * seconds after each start is restarted ever more slowly (up to `maxDelayMs`), not every `baseDelayMs`.
   */
  readonly stableMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { maxCrashes: 5, windowMs: 5 * 60_000, baseDelayMs: 1000, maxDelayMs: 30_000, stableMs: 60_000 };

/** What to do after one more crash: restart after `delayMs`, or give up. */
export type RestartDecision =
  | { readonly giveUp: false; readonly failures: number; readonly inARow: number; readonly delayMs: number }
  | { readonly giveUp: true; readonly failures: number };

/**
 * The crashes of one server within the policy's window, and the backoff that follows from them:
 * the n-th failure since the server was last up for `stableMs` restarts after `baseDelayMs * 2^(n-1)`
 * (at most `maxDelayMs`); the `maxCrashes`-th within `windowMs` gives up, unless told to keep trying.
 */
export class CrashHistory {
  private _times: number[] = [];
  /** Failures since the server was last up for `stableMs`. */
  private _inARow = 0;
  /** When the server last came up, until its next failure. */
  private _upSince: number | undefined;

  constructor(readonly policy: RestartPolicy) {}

  /**
   * Records a crash at `now` (ms) and says what follows. With `keepTrying` (a server that may come
   * back by itself, or one the user has work on) it never gives up: the delay stops growing at
   * `maxDelayMs` and the tries go on.
   */
  record(now: number, keepTrying = false): RestartDecision {
    this._times = this._times.filter((t) => now - t < this.policy.windowMs);
    this._times.push(now);
    // Up for a while since the last failure: this one starts the delays over.
    if (this._upSince !== undefined && now - this._upSince >= this.policy.stableMs) this._inARow = 0;
    this._upSince = undefined;
    this._inARow++;
    const failures = this._times.length;
    if (failures >= this.policy.maxCrashes && !keepTrying) return { giveUp: true, failures };
    // The delay grows with the failures since the server was last up, whatever the window forgot.
    const n = Math.max(failures, this._inARow);
    return { giveUp: false, failures, inARow: this._inARow, delayMs: Math.min(this.policy.baseDelayMs * 2 ** Math.min(n - 1, 30), this.policy.maxDelayMs) };
  }

  /** The server came up at `now`: a failure `stableMs` or more later starts the delays over (the window still counts crashes). */
  succeeded(now: number): void {
    this._upSince = now;
  }

  /** Forgets every crash (a stop by the user). */
  reset(): void {
    this._times = [];
    this._inARow = 0;
    this._upSince = undefined;
  }
}

/** A restart delay as the user reads it: "1 s", "30 s", "2 min". */
export function formatDelay(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** What follows a failure, in the words the connection logs and shows. */
export type RestartPlan =
  | { readonly kind: 'give-up'; readonly message: string }
  | { readonly kind: 'retry'; readonly message: string; readonly logLine: string; readonly retryAt: number };

/**
 * Restarts of one server: each failure is recorded in its {@link CrashHistory}, and either a
 * retry is timed (at most one at a time) or the server is given up on. Disposing cancels the retry.
 */
export class RestartScheduler extends Disposable {
  private readonly _crashes: CrashHistory;
  private _timer?: ReturnType<typeof setTimeout>;

  constructor(
    policy: RestartPolicy,
    private readonly _now: () => number = Date.now,
  ) {
    super();
    this._crashes = new CrashHistory(policy);
    this._register(toDisposable(() => this.cancel()));
  }

  /**
   * One more failure, for `reason`: a retry calling `retry(attempt)` once its delay is over, or
   * none (give up). An HTTP server, or one to keep trying (the user has work on it), is never given up on.
   */
  schedule(reason: string, how: { readonly http: boolean; readonly keepTrying: boolean }, retry: (attempt: number) => void): RestartPlan {
    this.cancel();
    const now = this._now();
    const decision = this._crashes.record(now, how.http || how.keepTrying);
    if (decision.giveUp) {
      const windowS = Math.round(this._crashes.policy.windowMs / 1000);
      return { kind: 'give-up', message: `${reason}. It crashed or failed to start ${decision.failures} times within ${windowS} s; not restarting again. Fix the server, then use "Restart Server".` };
    }
    const delay = decision.delayMs;
    const verb = how.http ? 'reconnecting' : 'restarting';
    const tries = decision.inARow;
    const attempt = tries > 1 ? ` (attempt ${tries + 1})` : '';
    this._timer = setTimeout(() => {
      this._timer = undefined;
      retry(tries + 1);
    }, delay);
    this._timer.unref?.();
    return { kind: 'retry', retryAt: now + delay, logLine: `${reason}; ${verb} in ${delay} ms${attempt}`, message: `${reason}; ${verb} in ${formatDelay(delay)}${attempt}` };
  }

  /** The server is up again (a failure after it stayed up `stableMs` starts the delays over). */
  succeeded(): void {
    this._crashes.succeeded(this._now());
  }

  /** Stopped by the user: no retry pending, every crash forgotten. */
  reset(): void {
    this.cancel();
    this._crashes.reset();
  }

  /** No retry pending (the crashes stay counted). */
  cancel(): void {
    if (this._timer) clearTimeout(this._timer);
    this._timer = undefined;
  }
}
