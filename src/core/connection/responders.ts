/**
 * The receiver side of a connection: what a responder (the UI, or the headless client) is given
 * for each sampling/elicitation request, and how a request becomes a ledger task when the server
 * asked for one (R-TASK-1) or is answered plainly otherwise.
 */
import { RELATED_TASK_META_KEY, type CreateMessageRequest, type CreateMessageResult, type ElicitRequest, type ElicitResult, type Result, type Task } from '@modelcontextprotocol/client';
import { DisposableStore } from '../base/lifecycle.js';
import type { ServerDefinition } from '../config/config.js';
import type { LedgerScope } from '../receiver/ledger.js';
import { currentCall, type CallLink } from './callScope.js';

/** What a responder knows about the request it answers. */
export interface ResponderContext {
  readonly serverId: string;
  readonly serverName: string;
  /** The definition of the server asking: key what the user allows by its identity, never by name. */
  readonly definition: ServerDefinition;
  /** Aborted when the request or its task is cancelled, or the connection closes. */
  readonly signal: AbortSignal;
  /** Disposed when the work ends (close prompts, cancel model requests). */
  readonly store: DisposableStore;
  /** The ledger task this request became, when it was task-augmented. */
  readonly taskId?: string;
  /** The server's own task this request belongs to (R-RESULT-4: sent on a `tasks/result` stream). */
  readonly relatedTaskId?: string;
  /**
   * The call this host sent (a tool call, task or plain) that this request came inside (2026-07-28:
   * a task's `inputRequests`, or an `input_required` result of the call itself).
   */
  readonly sentTask?: SentTaskLink;
  /** Marks the received task as waiting for the user (no-op for plain requests). */
  setWaitingForUser(waiting: boolean, statusMessage?: string): void;
}

/** The sent call a request came inside: its tracker key, server, task id (once it is a task) and the request's `inputRequests` key. */
export interface SentTaskLink {
  readonly key: string;
  readonly serverId: string;
  readonly serverName: string;
  readonly taskId?: string;
  readonly inputKey: string;
}

/** Answers the requests servers send to this host. Implemented by the UI (or deterministically, headless). */
export interface HostResponders {
  sampling(params: CreateMessageRequest['params'], ctx: ResponderContext): Promise<CreateMessageResult>;
  elicitation(params: ElicitRequest['params'], ctx: ResponderContext): Promise<ElicitResult>;
}

/** The params of a request a server may make a task of. */
export type ServedParams = { task?: { ttl?: number | null }; _meta?: Record<string, unknown> };

/** Who asks: the server's identity as a responder sees it. */
export type RequestingServer = Pick<ResponderContext, 'serverId' | 'serverName' | 'definition'>;

/**
 * Answers one request: with `params.task`, creates a task in `scope`, runs `respond` as its work
 * and answers the CreateTaskResult at once; otherwise answers with `respond`'s result, the
 * request counted against the server's limit while it waits (`LedgerScope.openRequest`).
 */
export function serveRequest<P extends ServedParams, R extends Result>(
  scope: LedgerScope,
  server: RequestingServer,
  request: { readonly method: string; readonly params: P; readonly requestId: string | number; readonly signal: AbortSignal },
  respond: (params: P, ctx: ResponderContext) => Promise<R>,
): Promise<R | { task: Task }> {
  const { method, params, requestId, signal } = request;
  const call = currentCall();
  if (call) return respondInCall(server, call, String(requestId), params, signal, respond);
  const relatedTaskId = relatedTaskOf(params);
  if (params.task) {
    return (async () => {
      const { task: _taskParams, ...plainParams } = params;
      const task = await scope.createTask({ ttl: params.task?.ttl ?? undefined }, requestId, { method, params: plainParams });
      // The work's signal is made only if the responder reads `ctx.signal` (receiver/workAbort.ts).
      scope.runWith(task.taskId, (work) =>
        respond(plainParams as P, {
          ...server,
          get signal() {
            return work.signal;
          },
          store: work.store,
          taskId: task.taskId,
          relatedTaskId,
          setWaitingForUser: (w, m) => scope.setWaitingForUser(task.taskId, w, m),
        }),
      );
      return { task };
    })();
  }
  let release: () => void;
  try {
    release = scope.openRequest(method);
  } catch (e) {
    return Promise.reject(e);
  }
  const store = new DisposableStore();
  return respond(params, { ...server, signal, store, relatedTaskId, setWaitingForUser: () => undefined }).finally(() => {
    release();
    store.dispose();
  });
}

/**
 * A request that came inside one of this host's calls (2026-07-28 `input_required`): answered
 * like a direct request, under that call. `inputKey` is the request's key in `inputRequests`.
 */
function respondInCall<P extends ServedParams, R extends Result>(
  server: RequestingServer,
  call: CallLink,
  inputKey: string,
  params: P,
  signal: AbortSignal,
  respond: (params: P, ctx: ResponderContext) => Promise<R>,
): Promise<R> {
  const taskId = call.taskId?.();
  const sentTask: SentTaskLink = { key: call.key(), serverId: call.serverId, serverName: call.serverName, inputKey, ...(taskId !== undefined ? { taskId } : {}) };
  const store = new DisposableStore();
  call.answering?.(true);
  return respond(params, { ...server, signal, store, relatedTaskId: taskId, sentTask, setWaitingForUser: () => undefined }).finally(() => {
    call.answering?.(false);
    store.dispose();
  });
}

/** The server's own task a request belongs to (its related-task metadata), if any. */
export function relatedTaskOf(params: { _meta?: Record<string, unknown> }): string | undefined {
  const meta = params._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof meta?.taskId === 'string' ? meta.taskId : undefined;
}

