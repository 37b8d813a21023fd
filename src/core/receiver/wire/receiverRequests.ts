/**
 * The 2025-11-25 `tasks/*` requests this host answers as a receiver (the tasks servers created on
 * it with task-augmented `sampling/createMessage` and `elicitation/create`), on a
 * {@link ReceiverTaskStore}. SDK v2 no longer serves them from a task store of its own; the
 * answers and their errors are the ones the 2025 SDK gave, so servers see no change.
 */
import { RELATED_TASK_META_KEY, type Result, type Task } from '@modelcontextprotocol/client';
import { CancelTaskRequestSchema, GetTaskPayloadRequestSchema, GetTaskRequestSchema, ListTasksRequestSchema } from '@modelcontextprotocol/core';
import { ErrorCode, ProtocolError, errorMessage } from '../../base/errors.js';
import { isTerminal } from '../../base/taskState.js';
import type { ReceivedTaskRequest, ReceivedTasks } from '../../connection/hostClient.js';
import { OwnerClosedError, QUESTION_SCHEMAS, checkQuestion, type QuestionDoor } from '../questionDoor.js';
import type { ReceiverTaskStore } from '../taskStore.js';

/** The `tasks/*` requests of the 2025-11-25 receiver, and whether each is answered while its task runs. */
export const RECEIVER_TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'] as const;
export type ReceiverTaskMethod = (typeof RECEIVER_TASK_METHODS)[number];

interface TaskIdParams {
  readonly taskId: string;
}

/** R-TASK-1/2, R-META-2: a copy of the task (no related-task metadata), -32602 when unknown. */
export function answerTaskGet(store: ReceiverTaskStore, params: TaskIdParams): Result {
  const task = store.getTaskNow(params.taskId);
  // The 2025 SDK's own words for an unknown task.
  if (!task) throw new ProtocolError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
  return task as unknown as Result;
}

/**
 * R-RESULT-1/2/3: waits (without polling) until the task is terminal, then answers what the
 * plain request would have: its result with related-task metadata, or its JSON-RPC error.
 */
export async function answerTaskResult(store: ReceiverTaskStore, params: TaskIdParams, signal: AbortSignal): Promise<Result> {
  const { taskId } = params;
  await store.whenTerminal(taskId, signal);
  const result = await store.getTaskResult(taskId);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** R-LIST: one page of this server's tasks. */
export async function answerTaskList(store: ReceiverTaskStore, params: { readonly cursor?: string } | undefined): Promise<Result> {
  try {
    const { tasks, nextCursor } = await store.listTasks(params?.cursor);
    return { tasks, ...(nextCursor !== undefined ? { nextCursor } : {}), _meta: {} } as unknown as Result;
  } catch (e) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Failed to list tasks: ${errorMessage(e)}`);
  }
}

/** R-CANCEL-1/2: cancels a live task (its work is aborted) and answers it; -32602 for an unknown or ended one. */
export async function answerTaskCancel(store: ReceiverTaskStore, params: TaskIdParams): Promise<Result> {
  const { taskId } = params;
  const task = await store.getTask(taskId);
  if (!task) throw new ProtocolError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  if (isTerminal(task.status)) throw new ProtocolError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${task.status}`);
  await store.updateTaskStatus(taskId, 'cancelled', 'Client cancelled task execution.');
  const cancelled: Task | null = await store.getTask(taskId);
  if (!cancelled) throw new ProtocolError(ErrorCode.InvalidParams, `Task not found after cancellation: ${taskId}`);
  return { _meta: {}, ...cancelled } as unknown as Result;
}

/**
 * `store` as a client answers its wire (hostClient.ts): the budget, the plain `tasks/get` read,
 * each `tasks/*` request with its 2025 schema, the requests a server may make a task of, and
 * (through `door`) the sent call a 2025 question names.
 */
export function receivedTasks(store: ReceiverTaskStore, door?: Pick<QuestionDoor, 'sentCallOf'>): ReceivedTasks {
  const requests: Record<ReceiverTaskMethod, ReceivedTaskRequest> = {
    'tasks/get': { schema: GetTaskRequestSchema, answer: (params: TaskIdParams) => answerTaskGet(store, params) },
    'tasks/result': { schema: GetTaskPayloadRequestSchema, answer: (params: TaskIdParams, signal: AbortSignal) => answerTaskResult(store, params, signal) },
    'tasks/list': { schema: ListTasksRequestSchema, answer: (params: { readonly cursor?: string } | undefined) => answerTaskList(store, params) },
    'tasks/cancel': { schema: CancelTaskRequestSchema, answer: (params: TaskIdParams) => answerTaskCancel(store, params) },
  };
  return {
    admit: (operation) => store.admit(operation),
    getTaskNow: (taskId) => store.getTaskNow(taskId),
    requests,
    creates: QUESTION_SCHEMAS,
    checkQuestion: (request) => void checkQuestion(request),
    ownQuestion: (method, relatedTaskId, request) => {
      const call = door?.sentCallOf?.(relatedTaskId);
      if (!call) return undefined;
      if (call.isClosed()) throw new OwnerClosedError(call.serverName, method);
      // Kept by the call while open, so a reload shows it again (requestor/keptQuestion.ts).
      const over = call.asked?.({ id: request.id, method, params: request.params });
      return { closed: call.closed, settled: (stillOpen) => !stillOpen && over?.() };
    },
  };
}
