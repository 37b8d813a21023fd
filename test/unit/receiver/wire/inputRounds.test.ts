/**
 * One `input_required` round of a sent call, answered for the call's owner (receiver/wire/inputRounds.ts):
 * opened through the one door as round N of the call (charged whole, held until answered, refused once
 * the call is closed), each request checked once and answered by the same responders, owned by its round;
 * the first request that fails withdraws the others.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerRound } from '../../../../src/core/receiver/wire/inputRounds.js';
import type { ServerDefinition } from '../../../../src/core/config/config.js';
import { QuestionDoor, type CallLink } from '../../../../src/core/receiver/questionDoor.js';
import { LimitExceededError } from '../../../../src/core/base/errors.js';
import { ScriptedResponders } from '../../../helpers/host.js';
import { checkLeaks } from '../../../helpers/leaks.js';
import { closingLink } from '../../../helpers/callLinks.js';

const definition: ServerDefinition = { id: 's', name: 'srv', source: { kind: 'user', file: 'f' }, transport: { type: 'stdio', command: 'x', args: [], env: {} }, inputs: [] };
const server = { serverId: 's', serverName: 'srv', definition };
const ELICIT = { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } };
const SAMPLE = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } };

function budget(limit: number) {
  const b = {
    held: 0,
    reserve(count: number, what: string) {
      if (b.held + count > limit) throw new LimitExceededError(`${what}: limit ${limit}`);
      b.held += count;
      return () => void (b.held -= count);
    },
  };
  return b;
}

function call(): CallLink & { close(): void; answering: (open: boolean) => void; open: number } {
  const c = {
    key: () => 's/c1',
    serverId: 's',
    serverName: 'srv',
    ...closingLink(),
    maxQuestions: () => 10,
    open: 0,
    answering: (open: boolean) => void (c.open += open ? 1 : -1),
  };
  return c;
}

describe('answerRound', () => {
  checkLeaks();

  it('answers each request by key under its round of the call, holding the round on the budget until answered', async () => {
    const b = budget(10);
    const door = new QuestionDoor('srv', b);
    const responders = new ScriptedResponders();
    let heldWhileAsked = -1;
    responders.elicitImpl = async () => ((heldWhileAsked = b.held), { action: 'accept', content: {} });
    const c = call();
    const first = await answerRound(door, responders, server, 'tools/call', { a: ELICIT, b: SAMPLE }, c, new AbortController().signal);
    assert.deepEqual(Object.keys(first), ['a', 'b']);
    assert.equal(heldWhileAsked, 2, 'the round was charged whole');
    assert.equal(b.held, 0, 'and let go once answered');
    assert.equal(c.open, 0);
    // A round that asks one thing (answered without the fan-out) is keyed the same way.
    const second = await answerRound(door, responders, server, 'tools/call', { c: ELICIT }, c, new AbortController().signal);
    assert.deepEqual(second, { c: { action: 'accept', content: {} } });
    assert.equal(b.held, 0);
    assert.deepEqual(
      responders.calls.map((r) => (r.ctx.owner.kind === 'round' ? [r.ctx.owner.round, r.ctx.owner.inputKey, r.ctx.sentTask?.key] : [])),
      [
        [1, 'a', 's/c1'],
        [1, 'b', 's/c1'],
        [2, 'c', 's/c1'],
      ],
    );
  });

  it('the first request that fails withdraws the others, and the round fails with its reason', async () => {
    const door = new QuestionDoor('srv', budget(10));
    const responders = new ScriptedResponders();
    let withdrawn = false;
    responders.elicitImpl = (_p, ctx) =>
      new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => ((withdrawn = true), reject(new Error('withdrawn'))), { once: true }));
    responders.sampleImpl = () => Promise.reject(new Error('no model'));
    await assert.rejects(answerRound(door, responders, server, 'tools/call', { form: ELICIT, model: SAMPLE }, call(), new AbortController().signal), /no model/);
    assert.ok(withdrawn, "the open form's signal aborted");
  });

  it('a malformed request fails the round with -32602 before any responder; a closed call gets no round', async () => {
    const b = budget(10);
    const door = new QuestionDoor('srv', b);
    const responders = new ScriptedResponders();
    await assert.rejects(answerRound(door, responders, server, 'tools/call', { q: { method: 'elicitation/create', params: { message: 42 } } }, call(), new AbortController().signal), { code: -32602 });
    await assert.rejects(answerRound(door, responders, server, 'tools/call', { q: { method: 'roots/list' } }, call(), new AbortController().signal), { code: -32601 });
    const closed = call();
    closed.close();
    await assert.rejects(answerRound(door, responders, server, 'tools/call', { q: ELICIT }, closed, new AbortController().signal), /has ended or was cancelled/);
    assert.equal(responders.calls.length, 0);
    assert.equal(b.held, 0);
  });
});
