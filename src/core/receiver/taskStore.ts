import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/**
 * The receiver's task store as the host's wire layer needs it (implemented by `LedgerScope`):
 * the SDK's `TaskStore`, whose reads cost nothing, plus a budget charged per wire request and a
 * wait for a task's end.
 */
export interface ReceiverTaskStore extends TaskStore {
  /** R-SEC-3: charges one wire request to the server's budget; throws (-32600) when it is spent. */
  admit(operation: string): void;
  /**
   * {@link TaskStore.getTask} without the promise: a fresh copy of the task, or null when unknown
   * or expired; throws (-32602) for an empty id. Costs no budget.
   */
  getTaskNow(taskId: string): Task | null;
  /**
   * Resolves as soon as the task is terminal; rejects (-32602) when it is unknown, expires or is
   * removed, and when `signal` aborts. At most one listener on `signal`, removed when it ends.
   */
  whenTerminal(taskId: string, signal: AbortSignal): Promise<void>;
}
