import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/client';

/** What a task-augmented request asks of its task (R-CREATE-1): its time to live (null: unlimited). */
export interface CreateTaskOptions {
  readonly ttl?: number | null;
}

/**
 * The receiver's task store as the host's wire layer needs it (implemented by `ServerTasks`):
 * reads that cost nothing, plus a budget charged per wire request and a wait for a task's end.
 * It answers the 2025-11-25 `tasks/*` requests (receiver/wire/receiverRequests.ts).
 */
export interface ReceiverTaskStore {
  /** R-CREATE-1..3: a new `working` task for a task-augmented request. */
  createTask(taskParams: CreateTaskOptions, requestId: RequestId, request: Request): Promise<Task>;
  /** R-TASK-1/2: a copy of the task, or null when unknown or expired. */
  getTask(taskId: string): Promise<Task | null>;
  /** R-RESULT-1: the stored result, or the stored JSON-RPC error thrown as such. */
  getTaskResult(taskId: string): Promise<Result>;
  /** `tasks/cancel` (status `cancelled`) aborts the work (R-CANCEL-2). */
  updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void>;
  /** R-LIST: one page of the server's tasks. */
  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
  /** R-SEC-3: charges one wire request to the server's budget; throws (-32600) when it is spent. */
  admit(operation: string): void;
  /**
   * {@link getTask} without the promise: a fresh copy of the task, or null when unknown
   * or expired; throws (-32602) for an empty id. Costs no budget.
   */
  getTaskNow(taskId: string): Task | null;
  /**
   * Resolves as soon as the task is terminal; rejects (-32602) when it is unknown, expires or is
   * removed, and when `signal` aborts. At most one listener on `signal`, removed when it ends.
   */
  whenTerminal(taskId: string, signal: AbortSignal): Promise<void>;
}
