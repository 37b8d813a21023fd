/**
 * Requests inside a sent task (2026-07-28 `inputRequests`) are answered exactly like direct ones
 * (receiver/wire/inputRequests.ts; Tasks extension §Task Update Requests: "subject to the same trust
 * model and user-facing behavior as a direct elicitation/create request"), through the one door
 * (receiver/questionDoor.ts): one params check, one budget, refused once their task is closed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { respondToTaskInput } from '../../../../src/core/receiver/wire/inputRequests.js';
import type { ServerDefinition } from '../../../../src/core/config/config.js';
import { QuestionDoor, type CallLink } from '../../../../src/core/receiver/questionDoor.js';
import { LimitExceededError } from '../../../../src/core/base/errors.js';
import { ScriptedResponders } from '../../../helpers/host.js';
import { checkLeaks } from '../../../helpers/leaks.js';
import { closingLink } from '../../../helpers/callLinks.js';

const definition: ServerDefinition = { id: 's', name: 'srv', source: { kind: 'user', file: 'f' }, transport: { type: 'stdio', command: 'x', args: [], env: {} }, inputs: [] };
const server = { serverId: 's', serverName: 'srv', definition };
const signal = new AbortController().signal;
const ELICIT = { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } };

/** A budget of `limit` open requests, counting what is held. */
function budget(limit: number) {
  const b = {
    held: 0,
    reserve(count: number, what: string) {
      if (b.held + count > limit) throw new LimitExceededError(`${what}: limit ${limit}`);
      b.held += count;
      let open = true;
      return () => {
        if (open) b.held -= count;
        open = false;
      };
    },
  };
  return b;
}

function call(over: Partial<CallLink> = {}): CallLink & { close(): void } {
  return { key: () => 's/t1', serverId: 's', serverName: 'srv', taskId: () => 't1', ...closingLink(), maxQuestions: () => 10, ...over };
}

describe('respondToTaskInput', () => {
  checkLeaks();

  it('goes to the same responders as a direct request, owned by its sent task, never as a received task', async () => {
    const responders = new ScriptedResponders();
    const b = budget(5);
    const door = new QuestionDoor('srv', b);
    const c = call();
    const answer = await respondToTaskInput(door, responders, server, c, 'k', ELICIT, signal);
    assert.deepEqual(answer, { action: 'accept', content: {} });
    const sampled = await respondToTaskInput(door, responders, server, c, 'k2', { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } }, signal);
    assert.equal((sampled as { model?: string }).model, 'test-model');
    assert.equal(responders.calls.length, 2);
    for (const { ctx } of responders.calls) {
      assert.equal(ctx.taskId, undefined);
      assert.equal(ctx.definition, definition, 'consent is keyed by the same definition');
      assert.equal(ctx.sentTask?.key, 's/t1');
      assert.equal(ctx.relatedTaskId, 't1');
      assert.equal(ctx.owner.kind, 'task-input');
    }
    assert.equal(b.held, 0, 'each question let its budget go once answered');
  });

  it('rejects malformed params with -32602 like the direct path, and methods this host does not serve', async () => {
    const responders = new ScriptedResponders();
    const door = new QuestionDoor('srv', budget(5));
    await assert.rejects(respondToTaskInput(door, responders, server, call(), 'k', { method: 'elicitation/create', params: { message: 5 } }, signal), {
      code: -32602,
      message: 'elicitation/create: params.message must be a string, not a number',
    });
    await assert.rejects(respondToTaskInput(door, responders, server, call(), 'k', { method: 'roots/list' }, signal), (e: { code?: number }) => e.code === -32601);
    // The server's method name is quoted on one line.
    await assert.rejects(respondToTaskInput(door, responders, server, call(), 'k', { method: 'x\ny' }, signal), { code: -32601, message: '"x\\ny" is not supported by this host' });
    assert.equal(responders.calls.length, 0);
  });

  it('refuses a question for a closed call, withdraws an open one when its call closes, and bounds the questions of one call', async () => {
    const responders = new ScriptedResponders();
    const b = budget(50);
    const door = new QuestionDoor('srv', b);
    // Open until withdrawn.
    responders.elicitImpl = (_p, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true }));
    const c = call();
    const open = respondToTaskInput(door, responders, server, c, 'k', ELICIT, signal);
    c.close();
    await assert.rejects(open, /withdrawn/);
    await assert.rejects(respondToTaskInput(door, responders, server, c, 'k2', ELICIT, signal), { code: -32600, message: /refused: the call of "srv" it was asked for has ended or was cancelled/ });
    assert.equal(responders.calls.length, 1);
    assert.equal(b.held, 0);

    responders.elicitImpl = async () => ({ action: 'decline' });
    const few = call({ maxQuestions: () => 2 });
    await respondToTaskInput(door, responders, server, few, 'a', ELICIT, signal);
    await respondToTaskInput(door, responders, server, few, 'b', ELICIT, signal);
    await assert.rejects(respondToTaskInput(door, responders, server, few, 'c', ELICIT, signal), { code: -32600, message: /asked 3 .*limit 2, setting mcpTasks\.requestor\.maxQuestionsPerCall/ });
  });
});
