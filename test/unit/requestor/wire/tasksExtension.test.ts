/**
 * The Tasks extension on the transport (requestor/wire/tasksExtension.ts). Sections:
 * modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { TASK_ANSWER_CODE, TaskAnswers, TasksExtensionTransport } from '../../../../src/core/requestor/wire/tasksExtension.js';

const CAP = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
const TASK = { resultType: 'task', taskId: 't', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: null };

function pair() {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = { start: async () => undefined, close: async () => undefined, send: async (m) => void sent.push(m) };
  const answers = new TaskAnswers();
  const notes: string[] = [];
  const ext = new TasksExtensionTransport(inner, answers, (n) => void notes.push(n));
  const received: JSONRPCMessage[] = [];
  ext.onmessage = (m) => void received.push(m);
  return { ext, sent, received, answers, notes, inner, deliver: (m: JSONRPCMessage) => inner.onmessage!(m) };
}

type Answer = { error?: { code: number; message: string; data?: unknown }; result?: Record<string, unknown> };

describe('TasksExtensionTransport', () => {
  it('§Capability Negotiation: on a 2025 session, once the server declared it, every request carries the client capability in _meta (kept beside other _meta); notifications do not', async () => {
    const { ext, sent } = pair();
    await ext.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} } as JSONRPCMessage);
    ext.use(true, false);
    await ext.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {}, _meta: { progressToken: 7 } } });
    await ext.send({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't' } });
    await ext.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    await ext.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.deepEqual(sent[0], { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }, 'not before the server declared it');
    assert.deepEqual(sent[1], { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {}, _meta: { progressToken: 7, ...CAP } } });
    assert.deepEqual(sent[2], { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't', _meta: CAP } });
    assert.deepEqual(sent[3], { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: CAP } });
    assert.deepEqual(sent[4], { jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  it('§Capability Negotiation: on a 2026-07-28 session the transport adds nothing (the host client\'s envelope declares it)', async () => {
    const { ext, sent } = pair();
    ext.use(true, true);
    const call = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } };
    await ext.send(call);
    assert.equal(sent[0], call);
  });

  it('§Capability Negotiation: a CreateTaskResult answering anything but tools/call is an invalid response', async () => {
    const { ext, received, deliver } = pair();
    ext.use(true, false);
    await ext.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a' } });
    await ext.send({ jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'p' } });
    deliver({ jsonrpc: '2.0', id: 1, result: TASK });
    deliver({ jsonrpc: '2.0', id: 3, result: { messages: [] } });
    const [first, third] = received as Answer[];
    assert.equal(first!.error?.code, -32603);
    assert.match(first!.error!.message, /resources\/read with a CreateTaskResult/);
    assert.deepEqual(third!.result, { messages: [] });
  });

  for (const modern of [false, true]) {
    it(`§Polymorphic Results (${modern ? '2026-07-28' : '2025'} session): a tools/call answered with a task reaches the SDK as an error that names the kept answer, taken once`, async () => {
      const { ext, received, deliver, answers } = pair();
      ext.use(true, modern);
      await ext.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
      deliver({ jsonrpc: '2.0', id: 2, result: TASK });
      const err = (received[0] as Answer).error!;
      assert.equal(err.code, TASK_ANSWER_CODE);
      assert.deepEqual(answers.take(err), TASK);
      assert.equal(answers.take(err), undefined, 'taken once');
      assert.equal(answers.take(new Error('other')), undefined);
    });
  }

  it('2026-07-28: a result without resultType is taken as complete, and said once', async () => {
    const { ext, received, deliver, notes } = pair();
    ext.use(false, true);
    await ext.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    await ext.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    deliver({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    deliver({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
    assert.deepEqual((received[0] as Answer).result, { content: [], resultType: 'complete' });
    assert.deepEqual((received[1] as Answer).result, { tools: [], resultType: 'complete' });
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /tools\/call without "resultType"/);
  });

  it('answers are checked whichever is set first, the handler or the session; a 2025 server without the extension gets its messages as they are', async () => {
    const sent: JSONRPCMessage[] = [];
    const inner: Transport = { start: async () => undefined, close: async () => undefined, send: async (m) => void sent.push(m) };
    const ext = new TasksExtensionTransport(inner, new TaskAnswers());
    ext.use(true, false);
    const received: JSONRPCMessage[] = [];
    ext.onmessage = (m) => void received.push(m);
    await ext.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a' } });
    inner.onmessage!({ jsonrpc: '2.0', id: 1, result: TASK });
    assert.equal((received[0] as Answer).error?.code, -32603);

    const plain = pair();
    const answer = { jsonrpc: '2.0' as const, id: 1, result: TASK };
    await plain.ext.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a' } });
    plain.deliver(answer);
    assert.equal(plain.received[0], answer, 'not in use: the very message, unchecked');
  });
});
