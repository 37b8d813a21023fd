/**
 * A 2025-11-25 `tasks/get` for one of this host's received tasks, answered where it arrives.
 *
 * A server polls each task it created here at the task's `pollInterval`, and the answer is one
 * synchronous read of the ledger. Through the SDK's dispatch it first costs more than the read:
 * every incoming message is tried against the strict result and error response schemas (both
 * fail for a request, about 4 µs together), then the request schema, then the dispatch builds an
 * AbortController, a context with closures, a params parse and a chain of promises (bench/, row 1:
 * `tasks/get` went from 0.52× the bare SDK v1 client to 1.06× when the SDK v2 migration left this
 * out). So a message that can only be a plain `tasks/get` is answered here, in the same turn: the
 * budget charged (R-SEC-3), the params checked with the SDK's own schema, the task copied
 * (R-TASK-1/2, no related-task metadata: R-META-2) — the answer and every error are the ones the
 * SDK's dispatch sends for the same handler (test/unit/connection/taskGetOnArrival.test.ts).
 *
 * Everything else goes to the SDK untouched, and so does a `tasks/get` on a 2026-07-28 session
 * (where the SDK refuses requests from the server) or one with a `task` field (odd input).
 * Only public surface is used: the transport's `onmessage` and `send`.
 */
import type { JSONRPCResponse, Result, Transport } from '@modelcontextprotocol/client';
import { GetTaskRequestSchema } from '@modelcontextprotocol/core';
import { ErrorCode, ProtocolError } from '../base/errors.js';
import type { ReceiverTaskStore } from '../receiver/taskStore.js';

type OnMessage = NonNullable<Transport['onmessage']>;

export interface TaskGetRoute {
  readonly store: ReceiverTaskStore;
  /** Whether the session speaks 2026-07-28 (then the SDK's dispatch decides, as for any request). */
  isModern(): boolean;
  /** Where an answer that could not be sent is reported (the client's `onerror`). */
  onerror(error: Error): void;
  /**
   * The error a failed `tasks/get` is answered with (the host's handler wrapper: -32602 naming the
   * first issue of malformed params, R-ERR-1), so both paths answer alike.
   */
  failed(e: unknown, request: unknown): never;
}

/**
 * Puts the `tasks/get` route in front of the handler the SDK's `connect` gave `transport`.
 * `prior` is the transport's handler from before the SDK connected (the SDK calls it first with
 * every message; so does this route).
 */
export function answerTaskGetOnArrival(transport: Transport, prior: Transport['onmessage'], route: TaskGetRoute): void {
  const sdk = transport.onmessage;
  if (!sdk) return;
  const onmessage: OnMessage = (message, extra) => {
    if (!isPlainTaskGet(message) || route.isModern()) return sdk(message, extra);
    prior?.(message, extra);
    let response: JSONRPCResponse;
    try {
      response = { jsonrpc: '2.0', id: message.id, result: answer(route, message) };
    } catch (e) {
      response = { jsonrpc: '2.0', id: message.id, error: errorBody(e) };
    }
    transport.send(response).catch((e: unknown) => route.onerror(new Error(`Failed to send response: ${String(e)}`)));
  };
  transport.onmessage = onmessage;
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

function answer(route: TaskGetRoute, request: TaskGetMessage): Result {
  try {
    route.store.admit('tasks/get');
    const task = route.store.getTaskNow(GetTaskRequestSchema.parse(request).params.taskId);
    // The 2025 SDK's own words for an unknown task (connection/receiverRequests.ts).
    if (!task) throw new ProtocolError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return task as unknown as Result;
  } catch (e) {
    return route.failed(e, request);
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
