/**
 * Bounds how many lines of one kind a server can make the host log: a server that sends 10,000
 * bad messages a second must not turn its output channel into a flood. The first
 * `burst` lines of a window are logged; the rest are counted and summed up in one line when the
 * next window starts.
 */
export class LogThrottle {
  private _windowStart = -Infinity;
  private _inWindow = 0;
  private _suppressed = 0;

  constructor(
    private readonly _burst = 20,
    private readonly _windowMs = 10_000,
    private readonly _now: () => number = Date.now,
  ) {}

  /**
   * Whether to log one more line now. `log` is called first with a summary of the lines
   * suppressed in the window that just ended, if any.
   */
  take(log: (summary: string) => void): boolean {
    const now = this._now();
    if (now - this._windowStart >= this._windowMs) {
      if (this._suppressed > 0) log(`… ${this._suppressed} more like it in ${Math.round(this._windowMs / 1000)} s were not logged`);
      this._windowStart = now;
      this._inWindow = 0;
      this._suppressed = 0;
    }
    if (this._inWindow < this._burst) {
      this._inWindow++;
      return true;
    }
    this._suppressed++;
    return false;
  }
}
