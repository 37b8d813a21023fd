/**
 * The receiver's side of a connection, as the requestor reaches it to answer a 2026-07-28 task's
 * questions (requestor/inlineInputs.ts, requestor/callRounds.ts). Apart from receiverSide.ts, which holds the SDK, so that the
 * tracker (loaded at activation) evaluates none of it: the side itself is in the protocol part.
 */
import type { ClientSide } from '../../connection/clientSide.js';
import type { ReceiverSide } from './receiverSide.js';

/** The receiver's side of a connection, when it was given one. */
export function receiverOf(connection: { readonly sides: readonly ClientSide[] }): Pick<ReceiverSide, 'kind' | 'tasks' | 'questions' | 'respondToInput' | 'answerRound' | 'answerKept'> | undefined {
  return connection.sides.find((s) => s.kind === 'receiver') as ReceiverSide | undefined;
}
