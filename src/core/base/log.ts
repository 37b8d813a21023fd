/** The log interface every server connection writes to, and a log that drops everything. */

/** Where a connection's log lines go (a `LogOutputChannel` in VS Code, a buffer in tests). */
export interface ServerLog {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /**
   * False when trace lines are dropped anyway (the log level is above trace), so the JSON-RPC
   * trace of every message is not even formatted. Absent means true.
   */
  readonly traceEnabled?: boolean;
}

/** A log that drops everything. */
export const NULL_LOG: ServerLog = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, traceEnabled: false };
