/**
 * One protocol generation of tasks as the requestor speaks it: how a task-augmented `tools/call`
 * goes out and its CreateTaskResult is read, and how `tasks/get`, `tasks/result`, `tasks/cancel`,
 * `tasks/list` and task status notifications are encoded and decoded. The tracker (and through
 * it the tree) only ever sees the decoded {@link Task}s and results, so a second generation (the
 * 2026-07-28 Tasks extension) is one more implementation of this interface, chosen per connection
 * by `TrackerOptions.wireFor`. 2025-11-25: `wire2025_11_25.ts`.
 *
 * Errors stay JSON-RPC errors (`McpError` with the wire's code): the tracker tells "the server
 * no longer knows this task" (-32602) and a closed connection apart by them.
 */
import type { CallToolResult, JSONRPCMessage, Progress, ServerCapabilities, Task } from '@modelcontextprotocol/sdk/types.js';
import type { HostClient } from '../../connection/hostClient.js';

/** A tool call: the tool's name and its arguments. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export interface TaskWire {
  /** The protocol generation, e.g. `2025-11-25`. */
  readonly generation: string;
  /** Whether the server takes `tools/call` as a task (R-CAP-3). */
  toolCallsAsTasks(capabilities: ServerCapabilities | undefined): boolean;
  /** Whether the server lists its tasks (R-LIST). */
  listsTasks(capabilities: ServerCapabilities | undefined): boolean;
  /** Sends `tools/call` as a task (`ttl` undefined: the server chooses) and answers the task it created. */
  createToolTask(client: HostClient, call: ToolCall, options: { readonly ttl?: number; readonly signal: AbortSignal; readonly onprogress: (progress: Progress) => void }): Promise<Task>;
  /** `tasks/get` (R-GET-1). Polls pass no signal (answered at once; see requestor/polling.ts). */
  getTask(client: HostClient, taskId: string, signal?: AbortSignal): Promise<Task>;
  /** `tasks/result` of a tool call (R-RESULT-1): waits as long as the server takes. */
  getToolResult(client: HostClient, taskId: string, signal: AbortSignal): Promise<CallToolResult>;
  /** `tasks/cancel` (R-CANCEL-1/2): the task as the server answers it. */
  cancelTask(client: HostClient, taskId: string, signal: AbortSignal): Promise<Task>;
  /** One page of `tasks/list`. */
  listTasks(client: HostClient, cursor: string | undefined): Promise<{ readonly tasks: readonly Task[]; readonly nextCursor?: string }>;
  /** The task a status notification carries (R-NOTIFY-2); undefined for any other or a malformed message. */
  statusNotification(message: JSONRPCMessage): Task | undefined;
}
