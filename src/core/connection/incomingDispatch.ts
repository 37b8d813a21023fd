/**
 * How a {@link HostClient} reads what arrives on its transport: the SDK's own classification with
 * the checks that cannot succeed left out, and a 2025-11-25 `tasks/get` for a received task
 * answered where it arrives.
 *
 * The SDK's message handler tries every incoming message against its strict result and error
 * response schemas before the request and notification schemas. A request or notification carries
 * a string `method`, which those two schemas reject: for them the first two checks are certain to
 * fail, and a zod failure builds its issue list (about 4 µs together on the bench machine, a fifth
 * of an in-memory CreateTaskResult round trip). Here a message with a `method` meets only the SDK
 * check that can match — its own `isJSONRPCRequest` / `isJSONRPCNotification` — and goes to the
 * SDK's request or notification dispatch, exactly where the SDK's handler would have sent it (the
 * request dispatch is private in SDK v2: sdkInternals.ts, checked at start-up; without it requests
 * take the SDK's handler). Anything that fails its check goes to the SDK's handler unchanged, so
 * malformed input meets the SDK's own validation and errors.
 *
 * A response goes to the SDK's response dispatch (`_onresponse`, a documented subclass hook) when the
 * transport checks every message against the SDK's message schema (the project's stdio and server-host
 * transports, and the SDK's HTTP and SSE transports: connection/transports.ts), and otherwise to the SDK's
 * handler. The handler would check it against the result and error response schemas first, and
 * `_onresponse` checks it again: on a checked transport the first of those three checks of each
 * answer is left out (bench: rev2026 host CPU per call).
 *
 * A server polls each task it created here at the task's `pollInterval`, and the answer is one
 * synchronous read of the ledger; the SDK's request dispatch would first build an AbortController,
 * a context with closures, a params parse and a chain of promises. So a plain `tasks/get` on a 2025
 * session is answered here in the same turn: the budget charged (R-SEC-3), the params checked with
 * the SDK's own schema, the task copied (R-TASK-1/2, no related-task metadata: R-META-2) — the
 * answer and every error the ones the SDK's dispatch sends for the same handler. On 2026-07-28 (where
 * the SDK refuses requests from the server) and with a `task` field (odd input) the SDK decides.
 *
 * Bench: receiver tasks/get latency and receiver CreateTaskResult latency, after the move to SDK v2 left both out: in memory `tasks/get` p50 1.06× → 0.54× and
 * CreateTaskResult p50 25 → 21 µs (host CPU −20 %). Answers, errors and notifications are the SDK's,
 * message by message (test/unit/connection/incomingDispatch.test.ts).
 */
import { isJSONRPCNotification, isJSONRPCRequest, type JSONRPCNotification, type JSONRPCRequest, type JSONRPCResponse, type MessageExtraInfo, type Result, type Task, type Transport } from '@modelcontextprotocol/client';
import { GetTaskRequestSchema } from '@modelcontextprotocol/core';
import { ErrorCode, ProtocolError } from '../base/errors.js';

/** The received tasks as a plain `tasks/get` reads them (the receiver's store: receiver/taskStore.ts). */
export interface TaskReads {
  /** R-SEC-3: charges one wire request to the server's budget; throws when it is spent. */
  admit(operation: string): void;
  /** A fresh copy of the task, or null when unknown or expired. */
  getTaskNow(taskId: string): Task | null;
}

type OnMessage = NonNullable<Transport['onmessage']>;

export interface IncomingRoutes {
  /** The receiver's tasks (a plain `tasks/get` is answered from them); none: every request goes to the SDK. */
  readonly store?: TaskReads;
  /** Whether the session speaks 2026-07-28. */
  isModern(): boolean;
  /** The SDK's request dispatch (sdkInternals.ts); undefined: requests take the SDK's handler. */
  readonly request?: (request: JSONRPCRequest, extra?: MessageExtraInfo) => void;
  /**
   * The SDK's response dispatch (the client's `_onresponse`), when the transport hands on only messages
   * that passed the SDK's message schema; undefined: responses take the SDK's handler.
   */
  readonly response?: (response: JSONRPCResponse) => void;
  /** The SDK's notification dispatch (the client's `_onnotification`). */
  notification(notification: JSONRPCNotification, extra?: MessageExtraInfo): void;
  /** Where an answer that could not be sent is reported (the client's `onerror`). */
  onerror(error: Error): void;
  /**
   * The error a failed `tasks/get` is answered with (the host's handler wrapper: -32602 naming the
   * first issue of malformed params, R-ERR-1), so both paths answer alike.
   */
  failed(e: unknown, request: unknown): never;
}

/**
 * Puts the routes in front of the handler the SDK's `connect` gave `transport`. `prior` is the
 * transport's handler from before the SDK connected (the SDK calls it first with every message;
 * so do the routes).
 */
export function routeIncoming(transport: Transport, prior: Transport['onmessage'], routes: IncomingRoutes): void {
  const sdk = transport.onmessage;
  if (!sdk) return;
  const onmessage: OnMessage = (message, extra) => {
    const m = message as { method?: unknown; id?: unknown };
    if (typeof m.method !== 'string') {
      if (!routes.response || !isResponseShaped(message)) return sdk(message, extra);
      prior?.(message, extra);
      return routes.response(message);
    }
    if (m.id === undefined) {
      if (!isJSONRPCNotification(message)) return sdk(message, extra);
      prior?.(message, extra);
      return routes.notification(message, extra);
    }
    if (routes.store && isPlainTaskGet(message) && !routes.isModern()) {
      prior?.(message, extra);
      return answerTaskGet(transport, routes, routes.store, message);
    }
    if (!routes.request || !isJSONRPCRequest(message)) return sdk(message, extra);
    prior?.(message, extra);
    routes.request(message, extra);
  };
  transport.onmessage = onmessage;
}

/**
 * A message without a `method` that carries a `result` or an `error`: when the transport has checked it
 * against the SDK's message schema, a response (the request and notification schemas need a `method`),
 * which the SDK's handler would hand to `_onresponse` after checking it once more.
 */
function isResponseShaped(message: unknown): message is JSONRPCResponse {
  const m = message as { result?: unknown; error?: unknown };
  return m.result !== undefined || m.error !== undefined;
}

interface TaskGetMessage {
  readonly jsonrpc: '2.0';
  readonly id: string | number;
  readonly method: 'tasks/get';
  readonly params?: unknown;
}

/** A JSON-RPC request for `tasks/get` without task augmentation; the params are checked later, as the SDK does. */
function isPlainTaskGet(message: unknown): message is TaskGetMessage {
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { task?: unknown } };
  if (m.method !== 'tasks/get' || m.jsonrpc !== '2.0') return false;
  if (typeof m.id !== 'string' && !(typeof m.id === 'number' && Number.isInteger(m.id))) return false;
  const task = m.params?.task;
  return task === undefined || task === null || typeof task !== 'object';
}

function answerTaskGet(transport: Transport, routes: IncomingRoutes, store: TaskReads, request: TaskGetMessage): void {
  let response: JSONRPCResponse;
  try {
    response = { jsonrpc: '2.0', id: request.id, result: readTask(routes, store, request) };
  } catch (e) {
    response = { jsonrpc: '2.0', id: request.id, error: errorBody(e) };
  }
  transport.send(response).catch((e: unknown) => routes.onerror(new Error(`Failed to send response: ${String(e)}`)));
}

function readTask(routes: IncomingRoutes, store: TaskReads, request: TaskGetMessage): Result {
  try {
    store.admit('tasks/get');
    const task = store.getTaskNow(GetTaskRequestSchema.parse(request).params.taskId);
    // The 2025 SDK's own words for an unknown task (receiver/wire/receiverRequests.ts).
    if (!task) throw new ProtocolError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return task as unknown as Result;
  } catch (e) {
    return routes.failed(e, request);
  }
}

/** The error object the SDK's dispatch sends for a handler that threw `e` (non-integer codes: -32603). */
function errorBody(e: unknown): { code: number; message: string; data?: unknown } {
  const err = e as { code?: unknown; message?: unknown; data?: unknown };
  const thrown = Number.isSafeInteger(err?.code) ? (err.code as number) : ErrorCode.InternalError;
  // The 2025 wire codec's one renumbering (resource not found → invalid params).
  const code = thrown === -32_002 ? ErrorCode.InvalidParams : thrown;
  const message = typeof err?.message === 'string' ? err.message : 'Internal error';
  return { code, message, ...(err?.data !== undefined ? { data: err.data } : {}) };
}
