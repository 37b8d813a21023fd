/**
 * A call's `input_required` rounds as they open through the question door (callScope.ts says
 * which call and which round a question belongs to).
 */
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import type { InputRetry, InputRounds } from '../../connection/hostClient.js';
import type { QuestionDoor } from '../questionDoor.js';
import { callOf, runRounds } from './callScope.js';

/**
 * The `input_required` rounds of a client's requests (hostClient.ts): each round opens through
 * `door` (questionDoor.ts) — charged whole to the server's budget before any of its requests
 * reaches a responder, refused whole (failing the request with the reason) when it does not fit —
 * its requests run as that round of the call that sent it, and it is let go once answered (before
 * the retry goes out).
 */
export function roundsThrough(door: Pick<QuestionDoor, 'openRound'>): InputRounds {
  return {
    resolve({ method, inputRequests, signal }, retry, run) {
      const call = callOf(signal);
      let open: { readonly round: number; readonly release: () => void };
      try {
        open = door.openRound(method, inputRequests, call);
      } catch (e) {
        return Promise.reject(e);
      }
      const next: InputRetry = async (...args) => {
        open.release();
        const result = await retry(...args);
        if (isInputRequiredResult(result)) open = door.openRound(method, result.inputRequests as Record<string, unknown> | undefined, call);
        return result;
      };
      return runRounds({ call, round: () => open.round }, () => run(next)).finally(() => open.release());
    },
  };
}
