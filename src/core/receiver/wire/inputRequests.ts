/**
 * A server-to-client request that arrived inside a sent task (2026-07-28 Tasks extension
 * `inputRequests`), answered exactly as the same request sent directly: through the one door
 * (questionDoor.ts: one params check, one budget, refused once its task takes no questions) and the
 * same responders (consent, forms, trust rules), never as a received task (§Task Update Requests:
 * "subject to the same trust model and user-facing behavior").
 */
import { type CreateMessageRequest, type ElicitRequest, type Result } from '@modelcontextprotocol/client';
import { DisposableStore } from '../../base/lifecycle.js';
import { questionSignal, type CallLink, type QuestionDoor, type QuestionMessage } from '../questionDoor.js';
import type { HostResponders, RequestingServer, ResponderContext, SentTaskLink } from './responders.js';

/** Answers `request`, the `inputKey` entry of the `inputRequests` of the task `call` became. */
export async function respondToTaskInput(door: QuestionDoor, responders: HostResponders, server: RequestingServer, call: CallLink, inputKey: string, request: QuestionMessage, signal: AbortSignal): Promise<Result> {
  const { params, release } = door.admitTaskInput(call, request);
  const store = new DisposableStore();
  const taskId = call.taskId?.() ?? '';
  const sentTask: SentTaskLink = { key: call.key(), serverId: call.serverId, serverName: call.serverName, taskId, inputKey };
  const ctx: ResponderContext = {
    ...server,
    signal: questionSignal(store, signal, call).signal,
    store,
    relatedTaskId: taskId,
    sentTask,
    owner: { kind: 'task-input', call, taskId, inputKey },
    setWaitingForUser: () => undefined,
  };
  try {
    return request.method === 'elicitation/create' ? await responders.elicitation(params as ElicitRequest['params'], ctx) : await responders.sampling(params as CreateMessageRequest['params'], ctx);
  } finally {
    release();
    store.dispose();
  }
}
