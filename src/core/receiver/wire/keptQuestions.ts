/**
 * A 2025-11-25 question a server asked for a sent call on its task's `tasks/result` stream, asked
 * again after a reload (the call kept it: requestor/keptQuestion.ts). The server still waits for
 * its answer under the same JSON-RPC id in the same Streamable HTTP session, so the answer goes
 * back as the JSON-RPC response to that id (an SDK server resolves a response by its id, whatever
 * POST carries it). It is shown exactly as it was before the reload: through the one door
 * (questionDoor.ts: refused once its call takes no questions, its params checked again, charged to
 * the server's budget while open) and the same responders, under the call's task.
 */
import { RELATED_TASK_META_KEY, type CreateMessageRequest, type ElicitRequest, type JSONRPCResultResponse, type Result } from '@modelcontextprotocol/client';
import { DisposableStore } from '../../base/lifecycle.js';
import type { ServerTasks } from '../ledger.js';
import { checkQuestion, questionSignal, type CallLink, type KeptQuestion, type QuestionDoor } from '../questionDoor.js';
import type { HostResponders, RequestingServer, ResponderContext } from './responders.js';

/** Asks `question` again for `call` and resolves with the JSON-RPC response that answers it. */
export async function answerKeptQuestion(
  door: Pick<QuestionDoor, 'refuseIfClosed'>,
  tasks: Pick<ServerTasks, 'openRequest'>,
  responders: HostResponders,
  server: RequestingServer,
  call: CallLink,
  question: KeptQuestion,
  signal: AbortSignal,
): Promise<JSONRPCResultResponse> {
  door.refuseIfClosed(call, question.method);
  // Stored in this host's storage: checked again as if the server sent it now.
  const { method, params } = checkQuestion({ method: question.method, params: question.params });
  const release = tasks.openRequest(method);
  const store = new DisposableStore();
  const taskId = call.taskId?.();
  const ctx: ResponderContext = {
    ...server,
    signal: questionSignal(store, signal, call).signal,
    store,
    relatedTaskId: taskId,
    owner: { kind: 'plain', ...(taskId !== undefined ? { relatedTaskId: taskId } : {}) },
    setWaitingForUser: () => undefined,
  };
  let result: Result;
  try {
    result = method === 'elicitation/create' ? await responders.elicitation(params as ElicitRequest['params'], ctx) : await responders.sampling(params as CreateMessageRequest['params'], ctx);
  } finally {
    release();
    store.dispose();
  }
  // R-META-1: the answer names the task the question belongs to, as the live answer does (hostClient.ts).
  const answered = taskId === undefined ? result : { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  return { jsonrpc: '2.0', id: question.id, result: answered };
}
