/**
 * The task status machine of MCP 2025-11-25 (R-LIFE-1, R-LIFE-2), shared by the receiver's
 * ledger and the requestor's tracker.
 */
import type { Task } from '@modelcontextprotocol/client';
import { IllegalTransitionError } from './errors.js';

export type TaskStatus = Task['status'];
export type TerminalStatus = 'completed' | 'failed' | 'cancelled';

/** R-LIFE-2: completed, failed and cancelled never move again. */
export function isTerminal(status: TaskStatus): status is TerminalStatus {
  switch (status) {
    case 'working':
    case 'input_required':
      return false;
    case 'completed':
    case 'failed':
    case 'cancelled':
      return true;
    default:
      return assertNever(status);
  }
}

/** R-LIFE-2: whether `from` → `to` is an allowed move (staying in a non-terminal status is allowed). */
export function canTransition(from: TaskStatus, _to: TaskStatus): boolean {
  switch (from) {
    case 'working':
    case 'input_required':
      return true;
    case 'completed':
    case 'failed':
    case 'cancelled':
      return false;
    default:
      return assertNever(from);
  }
}

/** Throws {@link IllegalTransitionError} unless `from` → `to` is allowed. */
export function assertTransition(taskId: string, from: TaskStatus, to: TaskStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(taskId, from, to);
}

export function assertNever(x: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(x)}`);
}

/** Every status, for exhaustive UI tables. */
export const TASK_STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
