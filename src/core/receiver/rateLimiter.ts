/**
 * A token bucket (R-SEC-3): `ratePerSecond` tokens refill each second up to `burst`; each
 * admitted operation takes one. The receiver keeps one per server connection and charges it
 * once per *wire request* the server sends (see hostClient.ts), never per store read.
 */
export interface RateLimits {
  /** Tokens added per second, sustained. */
  readonly ratePerSecond: number;
  /** Most tokens the bucket holds (and its initial fill). */
  readonly burst: number;
}

export class RateLimiter {
  private _tokens: number;
  private _last: number;
  private _spent = 0;

  /** `limits` is read on every take, so changed settings apply at once. */
  constructor(
    private readonly _now: () => number,
    private readonly _limits: () => RateLimits,
  ) {
    this._tokens = _limits().burst;
    this._last = _now();
  }

  /** Takes one token; false (and nothing taken) when the bucket is empty. */
  take(now = this._now()): boolean {
    const { ratePerSecond, burst } = this._limits();
    // A clock that went backwards refills nothing (and takes nothing away).
    const elapsed = Math.max(0, now - this._last);
    this._tokens = Math.min(burst, this._tokens + (elapsed / 1000) * ratePerSecond);
    this._last = Math.max(this._last, now);
    if (this._tokens < 1) return false;
    this._tokens -= 1;
    this._spent++;
    return true;
  }

  /** Tokens taken so far (the budget spent, for tests and diagnostics). */
  get spent(): number {
    return this._spent;
  }
}
