/**
 * MCP Tasks — the API for other VS Code extensions (version 1).
 *
 * Copy this file into your extension (it has no imports) and get the API with:
 *
 *   const ext = vscode.extensions.getExtension<McpTasksExports>('mcp-tasks.mcp-tasks');
 *   const exports = await ext?.activate();
 *   if (exports?.version !== 1) throw new Error('MCP Tasks API version 1 not available');
 *   const api = exports.getApi(context.extension.id);
 *   const task = await api.createTask({ server: 'demo', method: 'tools/call',
 *     params: { name: 'long_build', arguments: { steps: 3 } }, priority: 'high' });
 *   task.onDidChange((s) => console.log(s.state));
 *   const outcome = await task.result(); // { status: 'completed', result } | { status: 'failed', … } | …
 *
 * Tasks run on the MCP servers this extension manages (user settings and .vscode/mcp.json),
 * through the same connections, queue, consent prompts and forms as the Tasks view.
 *
 * Every call validates its input; failures reject (or throw) a {@link McpTasksApiError}.
 */

/** An `Event` in the shape of `vscode.Event`: subscribe with a listener, dispose to stop. */
export type McpTasksEvent<T> = (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: { dispose(): unknown }[]) => { dispose(): unknown };

/** Scheduling priority: under a server's concurrency limit, urgent starts first, then high, normal, low; FIFO within one. */
export type McpTaskPriority = 'low' | 'normal' | 'high' | 'urgent';

/** What the caller knows about the work (the SDK design notes' TaskHint). */
export interface McpTaskHint {
  /** Expected duration in ms (shown to the user; informational). */
  readonly estimatedDurationMs?: number;
  /** Whether the caller expects progress notifications (informational; progress is always delivered). */
  readonly supportsProgress?: boolean;
  /** `false`: `cancel()` on this task's handle is refused (`not_cancellable`). The user can always cancel in the Tasks view. Default true. */
  readonly cancellable?: boolean;
}

/** A request to run as a task. Only `tools/call` is supported in version 1. */
export interface McpTaskRequest {
  /** The server's name as in the Tasks view (or its id when two configurations share a name). */
  readonly server: string;
  readonly method: 'tools/call';
  readonly params: { readonly name: string; readonly arguments?: Readonly<Record<string, unknown>> };
  readonly hint?: McpTaskHint;
  /** Default `normal`. */
  readonly priority?: McpTaskPriority;
}

/**
 * Where a task stands.
 * `queued`: waiting under the server's concurrency limit, not sent yet; `sending`: sent, no task id yet;
 * `working` / `input_required`: running on the server; `paused`: its server is disconnected;
 * `orphaned`: its server is no longer configured; `completed` / `failed` / `cancelled`: terminal;
 * `expired`: the server forgot it; `error`: ended locally (bad answer, failed request).
 */
export type McpTaskState =
  | 'queued'
  | 'sending'
  | 'working'
  | 'input_required'
  | 'paused'
  | 'orphaned'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'expired'
  | 'error';

export interface McpTaskProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A task this API object created (a copy; see {@link McpTaskHandle.snapshot}). */
export interface McpTaskSnapshot {
  /** `mcp-task://<server>/sent/<id>`: `<server>` URI-encoded, `<id>` a random id valid for this window session. */
  readonly uri: string;
  readonly server: string;
  readonly method: 'tools/call';
  readonly toolName: string;
  readonly state: McpTaskState;
  readonly priority: McpTaskPriority;
  readonly hint: McpTaskHint;
  /** The server's task id, once it named the task (plain calls: none). */
  readonly taskId?: string;
  /** `task`: runs as an MCP task; `plain`: the server or tool does not support tasks, called plainly. */
  readonly mode: 'task' | 'plain';
  /** The server's status message, or why the state is what it is. */
  readonly message?: string;
  readonly progress?: McpTaskProgress;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
}

/** A JSON-RPC error as the server (or the host) reported it. */
export interface McpTaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** How a task ended. A tool result is the MCP `CallToolResult` (`content`, `structuredContent`, `isError`). */
export type McpTaskResult =
  | { readonly status: 'completed'; readonly result: Readonly<Record<string, unknown>> }
  /** The tool reported an error (`result.isError`), the request failed (`error`), or the task was lost (`expired`/`error` state: `error.message` says why). */
  | { readonly status: 'failed'; readonly result?: Readonly<Record<string, unknown>>; readonly error?: McpTaskError }
  | { readonly status: 'cancelled'; readonly message?: string };

/** A task created through this API object: the capability to watch, cancel and read it. */
export interface McpTaskHandle {
  readonly uri: string;
  /** Throws `pruned` once the task is no longer kept (dismissed or pruned). */
  snapshot(): McpTaskSnapshot;
  /** Fires on every change of the task. */
  readonly onDidChange: McpTasksEvent<McpTaskSnapshot>;
  /** Fires on progress notifications. */
  readonly onDidProgress: McpTasksEvent<McpTaskProgress>;
  /** Fires once when the task is no longer kept (dismissed in the Tasks view, or pruned); the error says which. */
  readonly onDidRemove: McpTasksEvent<McpTasksApiError>;
  /** Resolves once the task is finished (its payload fetched). Rejects `pruned` if it is forgotten first. */
  result(): Promise<McpTaskResult>;
  /** Cancels it: a queued task never reaches the server; a running one gets `tasks/cancel`. Resolves with the task as it stands. */
  cancel(): Promise<McpTaskSnapshot>;
}

/** A task of either direction as `listTasks`/`watchTasks` show it: no arguments, no results. */
export interface McpTaskSummary {
  /** `mcp-task://<server>/sent/<id>` or `mcp-task://<server>/received/<id>`. */
  readonly uri: string;
  /** `sent`: a tool call this window sent; `received`: a task a server created on this window (sampling, elicitation). */
  readonly direction: 'sent' | 'received';
  readonly server: string;
  /** Tool name (sent) or request kind (received). */
  readonly title: string;
  readonly state: McpTaskState;
  /** Created through this API object (then `getTask(uri)` gives its handle). */
  readonly mine: boolean;
  readonly createdAt: number;
}

export interface McpTaskFilter {
  readonly server?: string;
  /** Default: both. */
  readonly direction?: 'sent' | 'received' | 'both';
  readonly states?: readonly McpTaskState[];
  /** `true`: only tasks of this API object. */
  readonly mine?: boolean;
}

export interface McpTaskListChange {
  readonly kind: 'added' | 'updated' | 'removed';
  readonly task: McpTaskSummary;
}

/** Why a call failed. */
export type McpTasksApiErrorKind =
  /** The input did not validate; `message` names the field. */
  | 'invalid_input'
  /** No configured server by that name or id (or two share the name: use the id). */
  | 'unknown_server'
  /** The server is not running (starting, stopped, failed, not approved). */
  | 'server_not_running'
  /** The server has no tool by that name. */
  | 'unknown_tool'
  /** The server or tool cannot take the request (e.g. a task-only tool on a server without tasks). */
  | 'unsupported'
  /** No task with that URI. */
  | 'not_found'
  /** The task exists but was not created through this API object (see it via listTasks/watchTasks). */
  | 'forbidden'
  /** The task is no longer kept (dismissed or pruned); its state and result are gone. */
  | 'pruned'
  /** The hint said `cancellable: false`. */
  | 'not_cancellable'
  /** The API object was disposed (or the extension deactivated). */
  | 'disposed';

/** Errors thrown by the API: an `Error` with `name === 'McpTasksApiError'`, a `kind` and a JSON-RPC `code`. */
export interface McpTasksApiError extends Error {
  readonly name: 'McpTasksApiError';
  readonly kind: McpTasksApiErrorKind;
  readonly code: number;
}

/** Per-consumer API object (version 1). Dispose it to drop its listeners (its tasks keep running). */
export interface McpTasksApiV1 {
  readonly version: 1;
  /** The label this object was created with (`getApi(extensionId)`); shown in the Tasks view. */
  readonly consumer: string;
  /** Configured servers and whether they run. */
  servers(): { readonly name: string; readonly id: string; readonly running: boolean }[];
  /** Creates a task (queued if the server is at its limit). Rejects with a typed error. */
  createTask(request: McpTaskRequest): Promise<McpTaskHandle>;
  /** The handle of a task this object created, by URI; `forbidden` for others' tasks, `not_found`/`pruned` otherwise. */
  getTask(uri: string): McpTaskHandle;
  /** Every task of both directions (filtered), newest first. */
  listTasks(filter?: McpTaskFilter): McpTaskSummary[];
  /** Calls `listener` for each change of a task matching `filter` (coalesced, at most ~10 per second). */
  watchTasks(listener: (change: McpTaskListChange) => unknown, filter?: McpTaskFilter): { dispose(): void };
  dispose(): void;
}

/** What `activate()` returns (in production builds nothing else). */
export interface McpTasksExports {
  readonly version: 1;
  /**
   * A new API object labelled with your extension id (`publisher.name`). Ownership of tasks is
   * bound to the returned object, not to the label: keep it to yourself.
   */
  getApi(extensionId: string): McpTasksApiV1;
}
