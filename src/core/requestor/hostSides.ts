/**
 * The sides a connection of this host installs on its clients (connection/clientSide.ts): the
 * requestor's 2026-07-28 task wire, and, where received tasks are kept, the receiver's side on
 * the ledger. The extension, the headless client and the tests build connections with these.
 */
import type { ServerDefinition } from '../config/config.js';
import type { ClientSide } from '../connection/clientSide.js';
import type { TaskLedger } from '../receiver/ledger.js';
import { ReceiverSide } from '../receiver/wire/receiverSide.js';
import type { HostResponders } from '../receiver/wire/responders.js';
import { TaskWireSide } from './wire/taskWireSide.js';

/** Both sides: tool calls with the task wire, and the questions and tasks a server makes here answered on `ledger` by `responders`. */
export function hostSides(ledger: TaskLedger, responders: HostResponders): (definition: ServerDefinition) => readonly ClientSide[] {
  return (definition) => [new TaskWireSide(), new ReceiverSide(ledger, responders, definition)];
}

/** The requestor's side alone: tool calls (as tasks where the server allows), no ledger; a server's questions are not answered. */
export function requestorSides(): (definition: ServerDefinition) => readonly ClientSide[] {
  return () => [new TaskWireSide()];
}
