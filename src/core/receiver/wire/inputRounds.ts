/**
 * One `input_required` round of a call this host sent (2026-07-28 multi round-trip requests),
 * answered for the call's owner (requestor/callRounds.ts), who retries the call with the answers.
 * The round opens through the question door as round `round` of that call — charged whole to the
 * server's budget before any of its requests reaches a responder, refused whole (the call fails with
 * the reason) when it does not fit or the call takes no questions — and each of its requests is
 * checked once and answered by the same responders (consent, forms, trust rules) as the same request
 * sent directly, owned by that round of the call. The round is let go once answered (before the retry).
 */
import type { InputResponses, Result } from '@modelcontextprotocol/client';
import { DisposableStore } from '../../base/lifecycle.js';
import { checkQuestion, questionSignal, type CallLink, type QuestionDoor, type QuestionMessage, type QuestionOwner } from '../questionDoor.js';
import type { HostResponders, RequestingServer, ResponderContext, SentTaskLink } from './responders.js';

/** A round's requests by their `inputRequests` key, as the server sent them. */
export type RoundRequests = Readonly<Record<string, unknown>>;

/**
 * Answers the `inputRequests` of one round of `method` for `call`: resolves with the answers by key
 * (the round's `inputResponses`). The first request that fails withdraws the others (their signals
 * abort) and fails the round; `signal` withdraws them all (the call was given up).
 */
export async function answerRound(
  door: Pick<QuestionDoor, 'openRound'>,
  responders: HostResponders,
  server: RequestingServer,
  method: string,
  inputRequests: RoundRequests,
  call: CallLink,
  signal: AbortSignal,
): Promise<InputResponses> {
  const open = door.openRound(method, inputRequests, call);
  const links = new DisposableStore();
  // Withdrawn when a request of the round fails, the call is given up, or the call takes no more questions.
  const round = questionSignal(links, signal, call);
  const withdrawn = round.signal;
  try {
    // The first request that fails withdraws the others.
    const answer = async (inputKey: string) => {
      try {
        return await answerOne(responders, server, call, open.round, inputKey, inputRequests[inputKey] as QuestionMessage, withdrawn);
      } catch (e) {
        round.abort(e);
        throw e;
      }
    };
    const keys = Object.keys(inputRequests);
    // Most rounds ask one thing: answered without the fan-out below (bench: rev2026 input_required host CPU per call).
    if (keys.length === 1) return { [keys[0]!]: await answer(keys[0]!) } as InputResponses;
    const answered = await Promise.all(keys.map(async (inputKey) => [inputKey, await answer(inputKey)] as const));
    // The responders' results are the bare answers the round asked for (an ElicitResult, a CreateMessageResult).
    return Object.fromEntries(answered) as InputResponses;
  } finally {
    links.dispose();
    open.release();
  }
}

/** A round's question is the call's own: no received task of this host waits on the user for it. */
const noWaiting = (): void => undefined;

/** One request of the round: checked once (-32602 naming the field, -32601 for a method this host does not answer), then answered under its call. */
async function answerOne(responders: HostResponders, server: RequestingServer, call: CallLink, round: number, inputKey: string, request: QuestionMessage, signal: AbortSignal): Promise<Result> {
  const { method, params } = checkQuestion(request);
  const taskId = call.taskId?.();
  const sentTask: SentTaskLink = taskId !== undefined ? { key: call.key(), serverId: call.serverId, serverName: call.serverName, inputKey, taskId } : { key: call.key(), serverId: call.serverId, serverName: call.serverName, inputKey };
  const owner: QuestionOwner = { kind: 'round', call, round, inputKey };
  const store = new DisposableStore();
  const ctx: ResponderContext = { serverId: server.serverId, serverName: server.serverName, definition: server.definition, signal, store, relatedTaskId: taskId, sentTask, owner, setWaitingForUser: noWaiting };
  call.answering?.(true);
  try {
    return method === 'elicitation/create' ? await responders.elicitation(params as Parameters<HostResponders['elicitation']>[0], ctx) : await responders.sampling(params as Parameters<HostResponders['sampling']>[0], ctx);
  } finally {
    call.answering?.(false);
    store.dispose();
  }
}
