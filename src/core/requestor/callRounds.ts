/**
 * The `input_required` rounds of a call this host sent (2026-07-28 multi round-trip requests),
 * driven by the call itself: its request names it as the owner of its rounds (connection/roundOwner.ts
 * `OwnedRequestOptions`; the host client hands it the rounds), and on each `input_required` answer it
 * has the round answered through the connection's receiver side — opened through the question door
 * as round N of this call, its own typed link ({@link SentTask.call}), and answered by the same
 * responders as the same requests sent directly (receiver/wire/inputRounds.ts) — then retries with
 * the answers and the `requestState` byte-exact, at most `maxRounds` times. Free of the SDK: the
 * tracker, which activation loads, makes one per call.
 */
import type { InputResponses } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '../base/errors.js';
import type { InputRequiredAnswer, InputRounds, InputRoundsOwner } from '../connection/roundOwner.js';
import type { RequestorConnection } from '../connection/connection.js';
import { receiverOf } from '../receiver/wire/receiverOf.js';
import type { SentTask } from './sentTask.js';
import type { TaskDrive } from './taskDrive.js';

/**
 * The pause before retrying a round that asks nothing (a server shedding load only asks for its
 * state back): the SDK's own driver waits as long, so such a server is not called in a tight loop.
 */
export const STATE_ONLY_ROUND_PAUSE_MS = 250;

const NEVER = new AbortController().signal;

/** The rounds of the call `sent`, sent through `connection` while `live` tracks it. */
export class CallRounds implements InputRoundsOwner {
  constructor(
    private readonly _sent: SentTask,
    private readonly _connection: RequestorConnection,
    private readonly _live: TaskDrive,
  ) {}

  async drive(rounds: InputRounds): Promise<unknown> {
    const signal = rounds.signal ?? NEVER;
    let answer: InputRequiredAnswer = rounds.first;
    for (let round = 1; ; round++) {
      if (round > rounds.maxRounds) throw this._exceeded(rounds, answer);
      this._asking(round);
      const requests = answer.inputRequests;
      let responses: InputResponses | undefined;
      if (requests && Object.keys(requests).length > 0) {
        const receiver = receiverOf(this._connection);
        // A connection that answers no questions (no receiver side): the call fails saying so.
        if (!receiver) throw new Error(`this host does not answer "${this._connection.name}"'s questions (its connection has no receiver)`);
        responses = await receiver.answerRound(rounds.method, requests, this._sent.call, signal);
      } else {
        await pause(STATE_ONLY_ROUND_PAUSE_MS, signal);
      }
      const next = await rounds.retry(responses, answer.requestState);
      if (next.kind === 'complete') return next.result;
      answer = next.answer;
    }
  }

  /** The call's row says what it waits on, in the host's words (while this call is still the one tracked). */
  private _asking(round: number): void {
    if (this._sent.live !== this._live) return;
    this._sent.record.progress = { progress: round, message: `asks for input (round ${round})` };
    this._sent.changed();
  }

  private _exceeded(rounds: InputRounds, last: InputRequiredAnswer): SdkError {
    return new SdkError(
      SdkErrorCode.InputRequiredRoundsExceeded,
      `${rounds.method} to "${this._connection.name}" still required input after ${rounds.maxRounds} rounds (the most this host answers for one request)`,
      { rounds: rounds.maxRounds, lastResult: last },
    );
  }
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
