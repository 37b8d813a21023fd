/**
 * Writes to one stream a turn of the event loop at a time. The first write of a turn goes out at
 * once (a lone request waits for nothing); the ones after it in the same turn — a burst of polls
 * whose timers fire together, the answers to a chunk of requests — go out together once the turn's
 * callbacks have run: one write instead of one each (bench: requestor host CPU, where 200 tasks
 * polled together made 4,200 writes a run, and make 458). Order is kept: nothing is written at once
 * while a batch waits. Used wherever a server's messages are written: a stdio server's stdin, the
 * window's link to the server host, and the host's own writes to servers and windows.
 */
export class TurnWrites<R = void> {
  /** Something went out at once in this turn: what follows waits for the turn's end. */
  private _turnWritten = false;
  private _batch: string[] = [];

  constructor(
    /** Writes `text` to the stream. */
    private readonly _write: (text: string) => R,
    /** Told what writing a batch returned (e.g. a promise its senders wait on). */
    private readonly _batchWritten?: (result: R) => void,
  ) {}

  /** Writes `text` now, returning what the write returned, or queues it behind this turn's first write (undefined). */
  write(text: string): R | undefined {
    if (this._turnWritten) {
      this._batch.push(text);
      return undefined;
    }
    this._turnWritten = true;
    setImmediate(this._endTurn);
    return this._write(text);
  }

  /** Writes what waits now (before the stream is ended). */
  flush(): void {
    if (this._batch.length === 0) return;
    const text = this._batch.length === 1 ? this._batch[0]! : this._batch.join('');
    this._batch = [];
    const result = this._write(text);
    this._batchWritten?.(result);
  }

  private readonly _endTurn = (): void => {
    this._turnWritten = false;
    this.flush();
  };
}
