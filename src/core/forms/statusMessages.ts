/**
 * The `statusMessage` this host reports to a server for a task it received (`tasks/get`,
 * `notifications/tasks/status`): the task's state in the server's terms. Servers log it or show
 * it to their own users, so it never names this host's UI (buttons, commands, views); what the
 * local user can do is said only locally (the Tasks tree, its tooltip, notifications).
 */

/** An elicitation waits for the user to answer its form or URL prompt. */
export const WAITING_FOR_USER_INPUT = "Waiting for the user's input";
/** A sampling request waits for the user's consent to use a language model. */
export const WAITING_FOR_USER_CONSENT = "Waiting for the user's consent to sample";
/** The user chose to write the sampling reply themselves and has not sent it yet. */
export const WAITING_FOR_USER_REPLY = 'Waiting for the user to write the reply';
/** The user consented; a language model is generating the reply. */
export function generatingWith(modelName: string): string {
  return `Generating with ${modelName}`;
}
/** An elicitation was answered with `action`. */
export function answered(action: string): string {
  return `Answered: ${action}`;
}

/** A URL-mode elicitation was accepted; the interaction happens in the browser. */
export const WAITING_FOR_URL_COMPLETION = 'Waiting for the server to confirm the URL interaction finished';

/** Every fixed message above, for tests and reviews. */
export const SERVER_STATUS_MESSAGES: readonly string[] = [WAITING_FOR_USER_INPUT, WAITING_FOR_USER_CONSENT, WAITING_FOR_USER_REPLY, WAITING_FOR_URL_COMPLETION];

/** Words of this host's UI that must not reach a server's statusMessage. */
export const LOCAL_UI_WORDS = /\b(respond|click|command|palette|tree|view|notification|open it)\b/i;
