/**
 * Which of this host's calls, and which of its `input_required` rounds, a question belongs to
 * when the server asked inside that call's result (2026-07-28 multi round-trip requests).
 *
 * The SDK fulfils those requests itself, through the same handlers a direct 2025 request reaches,
 * and gives a handler no word on which call it serves. The tracker names each call's link on the
 * call's abort signal ({@link linkCall}); the host client runs the SDK's rounds of a request
 * inside {@link runRounds}, and a handler reads the round back with {@link currentRound} — async
 * context follows the SDK's rounds however many there are, with nothing shared between calls.
 * Free of the SDK: the tracker, which activation loads, names its calls here (the rounds
 * themselves are in questionRounds.ts, with the connection's receiver side).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallLink } from '../questionDoor.js';

export type { CallLink } from '../questionDoor.js';

/** The `input_required` rounds of one request: the call they belong to (when the tracker sent it) and the round now open. */
export interface RoundContext {
  readonly call: CallLink | undefined;
  readonly round: () => number;
}

/**
 * What names a call: its link, read only when a question comes for it (most calls ask none, and
 * making a link per call was part of the tracker's CPU per call: bench, rev2026 host CPU per call).
 */
export interface CallLinkSource {
  readonly call: CallLink;
}

const links = new WeakMap<AbortSignal, CallLinkSource>();
const current = new AsyncLocalStorage<RoundContext>();

/** Names the call a request's abort signal belongs to (until the signal is collected). */
export function linkCall(signal: AbortSignal, source: CallLinkSource): void {
  links.set(signal, source);
}

/** The call a request's signal was linked to, if any. */
export function callOf(signal: AbortSignal | undefined): CallLink | undefined {
  return signal ? links.get(signal)?.call : undefined;
}

/** Runs `fn` (the SDK's input rounds of one request) as `rounds`. */
export function runRounds<T>(rounds: RoundContext, fn: () => T): T {
  return current.run(rounds, fn);
}

/** The rounds running now (inside {@link runRounds}), if any. */
export function currentRound(): RoundContext | undefined {
  return current.getStore();
}
