/**
 * Requests inside a sent task (2026-07-28 `inputRequests`) are answered exactly like direct ones
 * (connection/inputRequests.ts; Tasks extension §Task Update Requests: "subject to the same trust
 * model and user-facing behavior as a direct elicitation/create request").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { respondToInputRequest } from '../../../src/core/connection/inputRequests.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { ScriptedResponders } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const definition: ServerDefinition = { id: 's', name: 'srv', source: { kind: 'user', file: 'f' }, transport: { type: 'stdio', command: 'x', args: [], env: {} }, inputs: [] };
const server = { serverId: 's', serverName: 'srv', definition };
const link = { key: 's/t1', serverId: 's', serverName: 'srv', taskId: 't1', inputKey: 'k' };
const signal = new AbortController().signal;

describe('respondToInputRequest', () => {
  checkLeaks();

  it('goes to the same responders as a direct request, linked to its sent task, never as a received task', async () => {
    const responders = new ScriptedResponders();
    const answer = await respondToInputRequest(responders, server, { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } }, link, signal);
    assert.deepEqual(answer, { action: 'accept', content: {} });
    const sampled = await respondToInputRequest(responders, server, { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } }, link, signal);
    assert.equal((sampled as { model?: string }).model, 'test-model');
    assert.equal(responders.calls.length, 2);
    for (const { ctx } of responders.calls) {
      assert.equal(ctx.taskId, undefined);
      assert.equal(ctx.definition, definition, 'consent is keyed by the same definition');
      assert.deepEqual(ctx.sentTask, link);
      assert.equal(ctx.relatedTaskId, 't1');
    }
  });

  it('rejects malformed params with -32602 like the direct path, and methods this host does not serve', async () => {
    const responders = new ScriptedResponders();
    await assert.rejects(respondToInputRequest(responders, server, { method: 'elicitation/create', params: { message: 5 } }, link, signal), {
      code: -32602,
      message: 'elicitation/create: params.message must be a string, not a number',
    });
    await assert.rejects(respondToInputRequest(responders, server, { method: 'roots/list' }, link, signal), (e: { code?: number }) => e.code === -32601);
    // The server's method name is quoted on one line.
    await assert.rejects(respondToInputRequest(responders, server, { method: 'x\ny' }, link, signal), { code: -32601, message: '"x\\ny" is not supported by this host' });
    assert.equal(responders.calls.length, 0);
  });
});
