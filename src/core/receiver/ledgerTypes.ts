/**
 * Types and constants of the receiver's task ledger (ledger.ts, serverTasks.ts), re-exported
 * by ledger.ts.
 */
import type { Result, Task } from '@modelcontextprotocol/client';
import type { DisposableStore } from '../base/lifecycle.js';
import type { TaskOutcome } from '../base/taskOutcome.js';
import type { LedgerLimits } from '../config/limits.js';

export { errorOutcome, type TaskOutcome } from '../base/taskOutcome.js';
export { DEFAULT_LEDGER_LIMITS, MAX_TIMER_DELAY_MS, type LedgerLimits } from '../config/limits.js';

/** One line of a task's audit trail (R-SEC-4). */
export interface AuditEntry {
  readonly at: number;
  readonly event: 'created' | 'status' | 'retrieved' | 'cancelled' | 'expired' | 'rejected' | 'discarded';
  readonly detail?: string;
}

/** An audit line with the server it concerns, as written to the server's log. */
export interface AuditRecord extends AuditEntry {
  readonly serverId: string;
  readonly serverName: string;
  readonly taskId?: string;
}

/** Local facts about a received task that are not on the wire (for the UI). */
export interface ReceivedTaskInfo {
  /** `sampling/createMessage` or `elicitation/create`. */
  readonly method: string;
  /** Short human title, e.g. "Sampling" or "Elicitation: <message>". */
  readonly title: string;
  /** True while the work waits for the user (consent, a form). */
  readonly waitingForUser: boolean;
  /**
   * The server's own task this request belongs to, on the same connection: its related-task
   * metadata (R-META-1, also a request delivered through `tasks/result`, R-RESULT-4), or the
   * sent task whose input request it is (a wire that names it). The view nests it there.
   */
  readonly relatedTaskId?: string;
}

/** A copy of one received task, for the UI. */
export interface ReceivedTaskSnapshot {
  readonly serverId: string;
  readonly serverName: string;
  readonly task: Task;
  readonly info: ReceivedTaskInfo;
  readonly outcome?: TaskOutcome;
  readonly audit: readonly AuditEntry[];
}

/** Fired on every change of a received task. */
export interface LedgerChange {
  readonly serverId: string;
  readonly taskId: string;
  readonly kind: 'created' | 'updated' | 'removed';
  /** The task after the change (for `removed`, as it was). */
  readonly task: Task;
  /** Whether the wire-visible status changed (→ `notifications/tasks/status`). */
  readonly statusChanged: boolean;
}

/** Ledger-wide options. */
export interface LedgerOptions {
  readonly limits?: Partial<LedgerLimits>;
  /** Milliseconds since the epoch; injectable for tests. */
  readonly now?: () => number;
}

/** Work run for a received task; resolves with what the plain request would have answered. */
export type TaskWork = (signal: AbortSignal, store: DisposableStore) => Promise<Result>;

