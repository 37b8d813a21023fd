/**
 * Which of this host's calls a request it answers belongs to, when the server asked inside that
 * call's result (2026-07-28 multi round-trip requests: `input_required` with `inputRequests`).
 *
 * The SDK fulfils those requests itself, through the same handlers a direct 2025 request reaches,
 * and gives a handler no word on which call it serves. The tracker names each call's link on the
 * call's abort signal ({@link linkCall}); the host client runs the SDK's rounds for a call inside
 * {@link runForCall}, and a handler reads the link back with {@link currentCall} — async context
 * follows the SDK's rounds however many there are, with nothing shared between concurrent calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The call (a sent tool call, task or plain) a request came inside, and the request's `inputRequests` key. */
export interface CallLink {
  /** The tracker key of the call (it changes when the call becomes a task: read it when needed). */
  readonly key: () => string;
  readonly serverId: string;
  readonly serverName: string;
  /** The server's task id, once the call is a task. */
  readonly taskId?: () => string | undefined;
  /** Told when one of the call's requests is being answered, and when that ends (the call waits on the user meanwhile). */
  readonly answering?: (open: boolean) => void;
}

const links = new WeakMap<AbortSignal, CallLink>();
const current = new AsyncLocalStorage<CallLink>();

/** Names the call a request's abort signal belongs to (until the signal is collected). */
export function linkCall(signal: AbortSignal, link: CallLink): void {
  links.set(signal, link);
}

/** Runs `fn` (the SDK's input rounds of one request) as the call its signal was linked to, if any. */
export function runForCall<T>(signal: AbortSignal | undefined, fn: () => T): T {
  const link = signal ? links.get(signal) : undefined;
  return link ? current.run(link, fn) : fn();
}

/** The call whose input rounds are running now (inside {@link runForCall}), if any. */
export function currentCall(): CallLink | undefined {
  return current.getStore();
}
