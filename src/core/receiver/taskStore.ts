import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';

/**
 * The receiver's task store as the host's wire layer needs it (implemented by `LedgerScope`):
 * the SDK's `TaskStore`, whose reads cost nothing, plus a budget charged per wire request and a
 * wait for a task's end.
 */
export interface ReceiverTaskStore extends TaskStore {
  /** R-SEC-3: charges one wire request to the server's budget; throws (-32600) when it is spent. */
  admit(operation: string): void;
  /**
   * Resolves as soon as the task is terminal; rejects (-32602) when it is unknown, expires or is
   * removed, and when `signal` aborts. At most one listener on `signal`, removed when it ends.
   */
  whenTerminal(taskId: string, signal: AbortSignal): Promise<void>;
}
