/**
 * One protocol generation of tasks as the requestor speaks it: how a task-augmented `tools/call`
 * goes out and its CreateTaskResult is read, and how `tasks/get`, `tasks/result`, `tasks/cancel`,
 * `tasks/list` and task status notifications are encoded and decoded. The tracker (and through
 * it the tree) only ever sees the decoded {@link Task}s and results, so a second generation (the
 * 2026-07-28 Tasks extension) is one more implementation of this interface, chosen per connection
 * by `TrackerOptions.wireFor` (default: `select.ts`). 2025-11-25: `wire2025_11_25.ts`; the
 * 2026-07-28 Tasks extension: `wire2026_07_28.ts`.
 *
 * Errors stay JSON-RPC errors (`ProtocolError` with the wire's code): the tracker tells "the server
 * no longer knows this task" (-32602) and a closed connection apart by them.
 */
import type { CallToolResult, CreateMessageRequest, ElicitRequest, JSONRPCMessage, Progress, ServerCapabilities, Task } from '@modelcontextprotocol/client';
import type { TaskOutcome } from '../../base/taskOutcome.js';
import type { HostClient } from '../../connection/hostClient.js';
import type { InputRoundsOwner } from '../../connection/roundOwner.js';
import type { ResultStreamOptions } from './resultStream.js';

/** A server-to-client request carried inside a task (2026-07-28 `inputRequests`). */
export type InputRequest =
  | { readonly method: 'elicitation/create'; readonly params: ElicitRequest['params'] }
  | { readonly method: 'sampling/createMessage'; readonly params: CreateMessageRequest['params'] }
  | { readonly method: 'roots/list'; readonly params?: Record<string, unknown> };

/**
 * What a wire's task answer carries besides the Task itself (2026-07-28: `tasks/get` and
 * `notifications/tasks` inline the final result or error, and the outstanding `inputRequests`).
 * Never stored: the tracker takes it off the Task it keeps.
 */
export interface TaskInline {
  readonly outcome?: TaskOutcome;
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
}

/** A Task as a wire decodes it, with what it carried inline. */
export type WireTask = Task & { readonly inline?: TaskInline };

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
  /**
   * 2026-07-28: the server alone decides per call whether it becomes a task, so every tool call
   * goes through {@link createToolTask} (whatever the tool's `execution.taskSupport`).
   */
  readonly serverDecides?: boolean;
  /**
   * Sends `tools/call` as a task (`ttl` undefined: the server chooses) and answers the task it
   * created, or (`serverDecides` wires only) the plain result the server answered instead.
   * `inputRounds` drives the call's `input_required` rounds (2026-07-28), if the server asks any.
   */
  createToolTask(
    client: HostClient,
    call: ToolCall,
    options: { readonly ttl?: number; readonly signal: AbortSignal; readonly onprogress: (progress: Progress) => void; readonly inputRounds?: InputRoundsOwner },
  ): Promise<WireTask | { readonly result: CallToolResult }>;
  /** `tasks/get` (R-GET-1). Polls pass no signal (answered at once; see requestor/taskDrive.ts). */
  getTask(client: HostClient, taskId: string, signal?: AbortSignal): Promise<WireTask>;
  /**
   * `tasks/result` of a tool call (R-RESULT-1): waits as long as the server takes (no signal: the
   * task is terminal, answered at once). `stream` (2025-11-25 over Streamable HTTP): the event ids
   * of its stream reported, or a cut stream resumed instead of a new request (resultStream.ts).
   */
  getToolResult(client: HostClient, taskId: string, signal?: AbortSignal, stream?: ResultStreamOptions): Promise<CallToolResult>;
  /** `tasks/cancel` (R-CANCEL-1/2): the task as the server answers it (undefined: a bare acknowledgement, 2026-07-28). */
  cancelTask(client: HostClient, taskId: string, signal: AbortSignal): Promise<Task | undefined>;
  /** 2026-07-28 `tasks/update`: answers outstanding `inputRequests` by key. Absent: input comes on `tasks/result` (R-RESULT-4). */
  updateTask?(client: HostClient, taskId: string, inputResponses: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<void>;
  /** One page of `tasks/list`. */
  listTasks(client: HostClient, cursor: string | undefined): Promise<{ readonly tasks: readonly Task[]; readonly nextCursor?: string }>;
  /** The method of its task status notifications (read before any decoding: a flood of them costs a lookup each). */
  readonly statusNotificationMethod: string;
  /** The task a status notification carries (R-NOTIFY-2); undefined for any other or a malformed message. */
  statusNotification(message: JSONRPCMessage): WireTask | undefined;
}
