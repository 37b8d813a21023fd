/**
 * The receiver side of a connection: what a responder (the UI, or the headless client) is given
 * for each sampling/elicitation request, and how a request becomes a ledger task when the server
 * asked for one (R-TASK-1) or is answered plainly otherwise.
 */
import { RELATED_TASK_META_KEY, type CreateMessageRequest, type CreateMessageResult, type ElicitRequest, type ElicitResult, type Result, type Task } from '@modelcontextprotocol/client';
import { DisposableStore } from '../../base/lifecycle.js';
import type { ServerDefinition } from '../../config/config.js';
import type { ServerTasks } from '../ledger.js';
import type { QuestionOwner } from '../questionDoor.js';

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
  /** Who the question is asked for, named when it arrived (questionDoor.ts). */
  readonly owner: QuestionOwner;
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
 * Answers one request: with `params.task`, creates a task in `tasks` (the server's received tasks), runs `respond` as its work
 * and answers the CreateTaskResult at once; otherwise answers with `respond`'s result, the
 * request counted against the server's limit while it waits (`ServerTasks.openRequest`).
 */
export function serveRequest<P extends ServedParams, R extends Result>(
  tasks: ServerTasks,
  server: RequestingServer,
  request: { readonly method: string; readonly params: P; readonly requestId: string | number; readonly signal: AbortSignal },
  respond: (params: P, ctx: ResponderContext) => Promise<R>,
): Promise<R | { task: Task }> {
  const { method, params, requestId, signal } = request;
  const relatedTaskId = relatedTaskOf(params);
  if (params.task) {
    return (async () => {
      const { task: _taskParams, ...plainParams } = params;
      const task = await tasks.createTask({ ttl: params.task?.ttl ?? undefined }, requestId, { method, params: plainParams });
      const owner: QuestionOwner = { kind: 'received-task', taskId: task.taskId, ...(relatedTaskId !== undefined ? { relatedTaskId } : {}) };
      // The work's signal is made only if the responder reads `ctx.signal` (receiver/workAbort.ts).
      tasks.runWith(task.taskId, (work) =>
        respond(plainParams as P, {
          ...server,
          get signal() {
            return work.signal;
          },
          store: work.store,
          taskId: task.taskId,
          relatedTaskId,
          owner,
          setWaitingForUser: (w, m) => tasks.setWaitingForUser(task.taskId, w, m),
        }),
      );
      return { task };
    })();
  }
  let release: () => void;
  try {
    release = tasks.openRequest(method);
  } catch (e) {
    return Promise.reject(e);
  }
  const store = new DisposableStore();
  const owner: QuestionOwner = { kind: 'plain', ...(relatedTaskId !== undefined ? { relatedTaskId } : {}) };
  return respond(params, { ...server, signal, store, relatedTaskId, owner, setWaitingForUser: () => undefined }).finally(() => {
    release();
    store.dispose();
  });
}

/** The server's own task a request belongs to (its related-task metadata), if any. */
export function relatedTaskOf(params: { _meta?: Record<string, unknown> }): string | undefined {
  const meta = params._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof meta?.taskId === 'string' ? meta.taskId : undefined;
}

