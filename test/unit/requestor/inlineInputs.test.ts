/** One 2026-07-28 sent task's input requests on their own (requestor/inlineInputs.ts): each presented once, answered once with tasks/update. */
import { afterEach, beforeEach, describe, test, mock } from 'node:test';
import type { ReceiverSide } from '../../../src/core/receiver/wire/receiverSide.js';
import assert from 'node:assert/strict';
import { flush } from '../../helpers/fakeTime.js';
import { fakeConnection, sentTask, task } from '../../helpers/sentTaskFixture.js';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

const elicit = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } };

describe('input requests of one sent task', () => {
  test('each key is presented once across updates and answered once; the answered keys are kept', async () => {
    const presented: string[] = [];
    const updates: Array<Record<string, unknown>> = [];
    const connection = fakeConnection({ respondToInput: ((_r: unknown, _call: unknown, inputKey: string) => (presented.push(inputKey), Promise.resolve({ action: 'accept', content: {} }))) as unknown as ReceiverSide['respondToInput'] });
    const f = sentTask({ updateTask: (_c, _id, responses) => (updates.push({ ...responses }), Promise.resolve()) }, { task: task({ status: 'input_required' }) }, {}, connection);
    const update = { ...task({ status: 'input_required' }), inline: { inputRequests: { k1: elicit, k2: elicit } } };
    f.sent.live!.take(update as never);
    f.sent.live!.afterUpdate(true);
    f.sent.live!.take(update as never);
    f.sent.live!.afterUpdate(true);
    await flush();
    assert.deepEqual(presented, ['k1', 'k2'], 'each key once, though it came in two updates');
    assert.deepEqual(updates, [{ k1: { action: 'accept', content: {} } }, { k2: { action: 'accept', content: {} } }]);
    assert.deepEqual(f.sent.record.answeredInputKeys, ['k1', 'k2']);
  });

  test('an answer that cannot be given says why, as a passing reason', async () => {
    const f = sentTask({ updateTask: () => Promise.resolve() }, { task: task({ status: 'input_required' }) });
    f.sent.live!.take({ ...task({ status: 'input_required' }), inline: { inputRequests: { k1: elicit } } } as never);
    f.sent.live!.afterUpdate(true);
    await flush();
    assert.equal(f.sent.record.reason, `Could not answer "Server S"'s elicitation/create request "k1": no responder`);
    assert.equal(f.sent.record.passingReason?.kind, 'input-failed');
  });
});
