/**
 * Types and constants of the receiver's task ledger (ledger.ts, ledgerScope.ts), re-exported
 * by ledger.ts.
 */
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError, errorMessage } from '../base/errors.js';
import type { DisposableStore } from '../base/events.js';

/** Node timers overflow above this many ms and fire at once; never pass a larger delay. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Limits of R-SEC-2 / R-SEC-3 / R-LIST-1; each is a user setting (see package.json). */
export interface LedgerLimits {
  /** Largest ttl granted; larger requests are capped and the actual ttl reported (R-TASK-3). */
  readonly maxTtlMs: number;
  /** ttl when the request names none. */
  readonly defaultTtlMs: number;
  /** Non-terminal tasks one server may have at once. */
  readonly maxLiveTasksPerServer: number;
  /** Page size of `tasks/list`. */
  readonly listPageSize: number;
  /** Task operations (create/get/result/list/cancel) per second per server, sustained. */
  readonly operationsPerSecond: number;
  /** Burst allowance on top of the sustained rate. */
  readonly operationsBurst: number;
  /** `pollInterval` suggested to requestors. */
  readonly pollIntervalMs: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = {
  maxTtlMs: 60 * 60 * 1000,
  defaultTtlMs: 15 * 60 * 1000,
  maxLiveTasksPerServer: 32,
  listPageSize: 50,
  operationsPerSecond: 50,
  operationsBurst: 200,
  pollIntervalMs: 1000,
};

/** What a task ended with: the result the plain request would have had, or its JSON-RPC error (R-RESULT-1). */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: Result }
  | { readonly kind: 'error'; readonly code: number; readonly message: string; readonly data?: unknown };

/** One line of a task's audit trail (R-SEC-4). */
export interface AuditEntry {
  readonly at: number;
  readonly event: 'created' | 'status' | 'retrieved' | 'cancelled' | 'expired' | 'rejected' | 'discarded';
  readonly detail?: string;
}

/** An audit line with the server it concerns, as written to the server's log. */
export interface AuditRecord extends AuditEntry {
  readonly scopeId: string;
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
}

/** A copy of one received task, for the UI. */
export interface ReceivedTaskSnapshot {
  readonly scopeId: string;
  readonly serverName: string;
  readonly task: Task;
  readonly info: ReceivedTaskInfo;
  readonly outcome?: TaskOutcome;
  readonly audit: readonly AuditEntry[];
}

/** Fired on every change of a received task. */
export interface LedgerChange {
  readonly scopeId: string;
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

/** Turns a thrown value into the JSON-RPC error a plain request would have returned. */
export function errorOutcome(e: unknown): TaskOutcome {
  if (e instanceof McpError) return { kind: 'error', code: e.code, message: e.message, data: e.data };
  const code = (e as { code?: unknown })?.code;
  return { kind: 'error', code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError, message: errorMessage(e) };
}
