/**
 * The headless client's log: one line per event on stderr (stdout stays free), each prefixed
 * with the milliseconds since start, so a run can be read (and asserted on) afterwards.
 */
import type { ServerLog } from '../core/connection/connection.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
const ORDER: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];

export class StderrLog implements ServerLog {
  private readonly _start = Date.now();
  private readonly _min: number;

  constructor(
    level: LogLevel = 'info',
    private readonly _write: (line: string) => void = (line) => process.stderr.write(line),
  ) {
    this._min = ORDER.indexOf(level);
  }

  trace(message: string): void {
    this._emit('trace', message);
  }
  debug(message: string): void {
    this._emit('debug', message);
  }
  info(message: string): void {
    this._emit('info', message);
  }
  warn(message: string): void {
    this._emit('warn', message);
  }
  error(message: string): void {
    this._emit('error', message);
  }

  private _emit(level: LogLevel, message: string): void {
    if (ORDER.indexOf(level) < this._min) return;
    const t = String(Date.now() - this._start).padStart(6);
    this._write(`[headless ${t}ms] ${level.padEnd(5)} ${message}\n`);
  }
}
