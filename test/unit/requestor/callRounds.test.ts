/** A call driving its own 2026-07-28 `input_required` rounds (requestor/callRounds.ts), against a scripted server and receiver side. */
import { afterEach, beforeEach, describe, test, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { InputRequiredAnswer, InputRounds, RoundAnswer } from '../../../src/core/connection/roundOwner.js';
import type { ReceiverSide } from '../../../src/core/receiver/wire/receiverSide.js';
import { SdkError, SdkErrorCode } from '../../../src/core/base/errors.js';
import { CallRounds, STATE_ONLY_ROUND_PAUSE_MS } from '../../../src/core/requestor/callRounds.js';
import { flush } from '../../helpers/fakeTime.js';
import { fakeConnection, sentTask } from '../../helpers/sentTaskFixture.js';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

const ASK = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } };

/** A call whose rounds are answered by `answerRound`, and the rounds of its request as a server scripted by `answers` sends them. */
function setup(answerRound: ReceiverSide['answerRound'], first: InputRequiredAnswer, answers: RoundAnswer[], maxRounds = 10, signal?: AbortSignal) {
  const connection = fakeConnection({ answerRound });
  const f = sentTask({}, { mode: 'plain', phase: 'sending', task: undefined }, {}, connection);
  const retried: Array<{ responses: unknown; state: string | undefined }> = [];
  const rounds: InputRounds = {
    method: 'tools/call',
    first,
    maxRounds,
    signal,
    retry: (responses, state) => {
      retried.push({ responses, state });
      return Promise.resolve(answers.shift() ?? { kind: 'input_required', answer: { inputRequests: { again: ASK as never } } });
    },
  };
  return { f, rounds, retried, owner: new CallRounds(f.sent, connection, f.sent.live!) };
}

describe('a call drives its input_required rounds', () => {
  test('each round is answered under the call, then retried with the answers and the requestState byte-exact; the row says the round', async () => {
    const asked: Array<{ method: string; keys: string[]; key: string }> = [];
    const answerRound = ((method: string, requests: Record<string, unknown>, call: { key(): string }) => {
      asked.push({ method, keys: Object.keys(requests), key: call.key() });
      return Promise.resolve(Object.fromEntries(Object.keys(requests).map((k) => [k, { action: 'accept', content: { k } }])));
    }) as unknown as ReceiverSide['answerRound'];
    const state1 = ' {"sealed":"a\u00e9\\n"} ';
    const t = setup(answerRound, { inputRequests: { a: ASK as never }, requestState: state1 }, [
      { kind: 'input_required', answer: { inputRequests: { b: ASK as never, c: ASK as never }, requestState: 's2' } },
      { kind: 'complete', result: { content: [] } },
    ]);
    const result = await t.owner.drive(t.rounds);
    assert.deepEqual(result, { content: [] });
    assert.deepEqual(asked, [
      { method: 'tools/call', keys: ['a'], key: 's/t1' },
      { method: 'tools/call', keys: ['b', 'c'], key: 's/t1' },
    ]);
    assert.deepEqual(t.retried, [
      { responses: { a: { action: 'accept', content: { k: 'a' } } }, state: state1 },
      { responses: { b: { action: 'accept', content: { k: 'b' } } , c: { action: 'accept', content: { k: 'c' } } }, state: 's2' },
    ]);
    assert.deepEqual(t.f.sent.record.progress, { progress: 2, message: 'asks for input (round 2)' });
  });

  test('past its bound the call fails with the typed error naming the server; the round past it is not asked', async () => {
    let asked = 0;
    const answerRound = (() => (asked++, Promise.resolve({ again: { action: 'decline' } }))) as unknown as ReceiverSide['answerRound'];
    const t = setup(answerRound, { inputRequests: { again: ASK as never } }, [], 3);
    const error = await t.owner.drive(t.rounds).then(
      () => assert.fail('completed'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof SdkError);
    assert.equal(error.code, SdkErrorCode.InputRequiredRoundsExceeded);
    assert.equal(error.message, 'tools/call to "Server S" still required input after 3 rounds (the most this host answers for one request)');
    assert.equal(asked, 3);
    assert.equal(t.retried.length, 3);
  });

  test(`a round that asks nothing is retried after ${STATE_ONLY_ROUND_PAUSE_MS} ms; given up meanwhile, it is not retried`, async () => {
    const noAnswer = (() => assert.fail('nothing to ask')) as unknown as ReceiverSide['answerRound'];
    const t = setup(noAnswer, { requestState: 'busy' }, [{ kind: 'complete', result: { content: [] } }]);
    const done = t.owner.drive(t.rounds);
    await flush();
    assert.equal(t.retried.length, 0, 'not before the pause');
    mock.timers.tick(STATE_ONLY_ROUND_PAUSE_MS);
    assert.deepEqual(await done, { content: [] });
    assert.deepEqual(t.retried, [{ responses: undefined, state: 'busy' }]);

    const giveUp = new AbortController();
    const u = setup(noAnswer, { requestState: 'busy' }, [], 10, giveUp.signal);
    const abandoned = u.owner.drive(u.rounds);
    await flush();
    giveUp.abort(new Error('cancelled by the user'));
    await assert.rejects(abandoned, /cancelled by the user/);
    mock.timers.tick(STATE_ONLY_ROUND_PAUSE_MS);
    assert.equal(u.retried.length, 0);
  });

  test('a round the receiver refuses fails the call with its reason, and the call is not retried', async () => {
    const refuse = (() => Promise.reject(new Error('Too many questions in one input_required round (400)'))) as unknown as ReceiverSide['answerRound'];
    const t = setup(refuse, { inputRequests: { a: ASK as never } }, []);
    await assert.rejects(t.owner.drive(t.rounds), /Too many questions in one input_required round \(400\)/);
    assert.equal(t.retried.length, 0);
  });
});
