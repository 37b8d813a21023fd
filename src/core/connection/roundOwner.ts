/**
 * The port through which a request's owner drives its 2026-07-28 `input_required` rounds (multi
 * round-trip requests): the owner is named in the request's options, and the host client
 * (hostClient.ts `_resolveNonCompleteResult`) hands it the first `input_required` answer with the
 * SDK's own retry. Types only: the tracker, which activation loads, names its calls' owners here.
 */
import type { InputRequiredResult, InputResponses, RequestOptions } from '@modelcontextprotocol/client';

/** Where a request's `input_required` rounds stand: the last answer, which asks for input (2026-07-28). */
export type InputRequiredAnswer = Pick<InputRequiredResult, 'inputRequests' | 'requestState'>;

/** What the server answered a retry: the request complete, or one more round. */
export type RoundAnswer = { readonly kind: 'complete'; readonly result: unknown } | { readonly kind: 'input_required'; readonly answer: InputRequiredAnswer };

/**
 * The `input_required` rounds of one request, as its owner drives them: what the first answer
 * asks, the bound, and the retry — the original request again on a fresh id with the round's
 * `inputResponses` and the `requestState` echoed byte-exact (2026-07-28 multi round-trip requests).
 */
export interface InputRounds {
  readonly method: string;
  readonly first: InputRequiredAnswer;
  /** Most rounds the request may take (`maxInputRounds`). */
  readonly maxRounds: number;
  /** The request's signal: aborted when its owner gives it up. */
  readonly signal: AbortSignal | undefined;
  retry(inputResponses: InputResponses | undefined, requestState: string | undefined): Promise<RoundAnswer>;
}

/** The owner of a request's `input_required` rounds: answers each round and retries, until the server completes the request. */
export interface InputRoundsOwner {
  /** Resolves with the complete result; rejects with why the request failed (a round refused, past its bound, withdrawn). */
  drive(rounds: InputRounds): Promise<unknown>;
}

/**
 * Request options naming the owner of the request's `input_required` rounds. A request that names
 * none is refused, typed, by the SDK if the server answers `input_required` (the client's manual mode).
 */
export type OwnedRequestOptions = RequestOptions & { readonly inputRounds?: InputRoundsOwner };
