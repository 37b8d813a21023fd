/**
 * The Tasks extension on the transport (connection/tasksExtension.ts). Sections:
 * modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { TasksExtensionTransport } from '../../../src/core/connection/tasksExtension.js';

const CAP = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

function pair() {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = { start: async () => undefined, close: async () => undefined, send: async (m) => void sent.push(m) };
  const ext = new TasksExtensionTransport(inner);
  const received: JSONRPCMessage[] = [];
  ext.onmessage = (m) => void received.push(m);
  return { ext, sent, received, deliver: (m: JSONRPCMessage) => inner.onmessage!(m) };
}

describe('TasksExtensionTransport', () => {
  it('§Capability Negotiation: once enabled, every request carries the client capability in _meta (kept beside other _meta); notifications do not', async () => {
    const { ext, sent } = pair();
    await ext.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} } as JSONRPCMessage);
    ext.enabled = true;
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

  it('§Capability Negotiation: a CreateTaskResult answering anything but tools/call is an invalid response; for tools/call it passes', async () => {
    const { ext, received, deliver } = pair();
    ext.enabled = true;
    const task = { resultType: 'task', taskId: 't', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: null };
    await ext.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a' } });
    await ext.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
    await ext.send({ jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'p' } });
    deliver({ jsonrpc: '2.0', id: 1, result: task });
    deliver({ jsonrpc: '2.0', id: 2, result: task });
    deliver({ jsonrpc: '2.0', id: 3, result: { messages: [] } });
    const [first, second, third] = received as Array<{ error?: { code: number; message: string }; result?: unknown }>;
    assert.equal(first!.error?.code, -32603);
    assert.match(first!.error!.message, /resources\/read with a CreateTaskResult/);
    assert.deepEqual(second!.result, task);
    assert.deepEqual(third!.result, { messages: [] });
  });

  it('§Capability Negotiation: answers are checked whichever is set first, the handler or `enabled`; without the extension they pass as they are', async () => {
    const sent: JSONRPCMessage[] = [];
    const inner: Transport = { start: async () => undefined, close: async () => undefined, send: async (m) => void sent.push(m) };
    const ext = new TasksExtensionTransport(inner);
    ext.enabled = true;
    const received: JSONRPCMessage[] = [];
    ext.onmessage = (m) => void received.push(m);
    const task = { resultType: 'task', taskId: 't', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: null };
    await ext.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a' } });
    inner.onmessage!({ jsonrpc: '2.0', id: 1, result: task });
    assert.equal((received[0] as { error?: { code: number } }).error?.code, -32603);

    const plain = pair();
    const answer = { jsonrpc: '2.0' as const, id: 1, result: task };
    await plain.ext.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a' } });
    plain.deliver(answer);
    assert.equal(plain.received[0], answer, 'not enabled: the very message, unchecked');
  });
});
