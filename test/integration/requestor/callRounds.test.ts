/**
 * The `input_required` rounds of a call (2026-07-28) are driven by the call's owner, the tracker's
 * sent call (requestor/callRounds.ts), against a real SDK v2 server over stdio (the
 * inputRequests2026 fixture):
 * - a request that names no owner (a bare `client.callTool`) is refused with the SDK's typed error:
 *   nothing is asked, nothing is held;
 * - the rounds of one call are bounded: ten rounds are answered, an eleventh fails the call with the
 *   typed error naming the server, and no eleventh question is asked;
 * - a tool with an output schema that asks a round ends with its structured result checked against
 *   that schema (the SDK's `callTool` checks only the complete result).
 * Needs `node esbuild.mjs` first.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SdkError, SdkErrorCode } from '../../../src/core/base/errors.js';
import { DEFAULT_MAX_INPUT_ROUNDS } from '../../../src/core/config/limits.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { fixture, makeHost, stdioDefinition, textOf } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const TIMEOUT = { timeout: 60_000 };
const ASK = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } };

async function start(name: string) {
  const h = makeHost(stdioDefinition(name, process.execPath, [fixture('inputRequests2026')]));
  const tracker = new TaskTracker({ connectionFor: () => h.connection, minPollIntervalMs: 10 });
  await h.connection.start();
  const call = async (tool: string, args: Record<string, unknown>) => tracker.get(await tracker.callTool(h.connection, { name: tool }, args))!;
  return { h, tracker, call, dispose: () => (tracker.dispose(), h.dispose()) };
}

describe('a call drives its own input_required rounds', () => {
  checkLeaks();

  test('a request that names no owner is refused with the SDK typed error; nothing is asked or held', TIMEOUT, async () => {
    const t = await start('unowned-2026');
    try {
      const error = await t.h.connection.client.callTool({ name: 'ask', arguments: { requests: { q: ASK } } }, { timeout: 20_000 }).then(
        (r) => assert.fail(`answered ${JSON.stringify(r)}`),
        (e: unknown) => e,
      );
      assert.ok(error instanceof SdkError, String(error));
      assert.equal(error.code, SdkErrorCode.UnsupportedResultType);
      assert.equal(t.h.responders.calls.length, 0, 'no question reached a responder');
      assert.equal(t.h.tasks.openRequestCount, 0);
      // The same request sent by its owner is answered.
      const owned = await t.call('ask', { requests: { q: ASK } });
      assert.match(owned.outcome?.kind === 'result' ? textOf(owned.outcome.result) : JSON.stringify(owned.outcome), /echo: hi/);
    } finally {
      t.dispose();
    }
  });

  test(`the rounds of one call are bounded: ${DEFAULT_MAX_INPUT_ROUNDS} are answered, one more fails the call with the typed error and is not asked`, TIMEOUT, async () => {
    const t = await start('rounds-bound-2026');
    try {
      const ok = await t.call('ask_rounds', { rounds: DEFAULT_MAX_INPUT_ROUNDS });
      assert.equal(ok.outcome?.kind === 'result' ? textOf(ok.outcome.result) : JSON.stringify(ok.outcome), `answered ${DEFAULT_MAX_INPUT_ROUNDS} rounds`);
      assert.equal(t.h.responders.calls.length, DEFAULT_MAX_INPUT_ROUNDS);
      assert.deepEqual(
        t.h.responders.calls.map((c) => (c.ctx.owner.kind === 'round' ? c.ctx.owner.round : 0)),
        Array.from({ length: DEFAULT_MAX_INPUT_ROUNDS }, (_, i) => i + 1),
        'each question owned by its round of the call, in order',
      );
      t.h.responders.calls.length = 0;
      const over = await t.call('ask_rounds', { rounds: DEFAULT_MAX_INPUT_ROUNDS + 1 });
      assert.equal(over.phase, 'done');
      const said = over.outcome?.kind === 'error' ? over.outcome.message : JSON.stringify(over.outcome);
      assert.equal(said, `tools/call to "rounds-bound-2026" still required input after ${DEFAULT_MAX_INPUT_ROUNDS} rounds (the most this host answers for one request)`);
      assert.equal(t.h.responders.calls.length, DEFAULT_MAX_INPUT_ROUNDS, 'the round past the bound was not asked');
      assert.equal(t.h.tasks.openRequestCount, 0);
    } finally {
      t.dispose();
    }
  });

  test('a tool with an output schema that asks a round ends with its structured result, checked against the schema', TIMEOUT, async () => {
    const t = await start('typed-2026');
    try {
      t.h.responders.elicitImpl = async () => ({ action: 'accept', content: { name: 'Ada' } });
      await t.h.connection.client.listTools(); // as the product does: the SDK checks results against the listed output schema
      const s = await t.call('ask_typed', {});
      assert.equal(s.outcome?.kind, 'result', JSON.stringify(s.outcome));
      assert.deepEqual(s.outcome.kind === 'result' ? s.outcome.result.structuredContent : undefined, { name: JSON.stringify({ action: 'accept', content: { name: 'Ada' } }) });
      assert.equal(t.h.responders.calls.length, 1);
    } finally {
      t.dispose();
    }
  });
});
