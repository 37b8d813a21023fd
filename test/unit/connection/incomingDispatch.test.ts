/**
 * HostClient's reading of incoming messages (connection/incomingDispatch.ts): the SDK's own
 * classification with the checks that cannot succeed left out, and `tasks/get` answered where it
 * arrives. Differential: the same raw messages go to a HostClient and to a bare SDK `Client`, and
 * everything each sends back, reports to `onerror` or hands to a notification handler must match.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HOST_CAPABILITIES, HostClient } from '../../../src/core/connection/hostClient.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';

/** A scripted peer that answers `initialize` and records everything else the client sends. */
async function rig(client: Client, prior?: (m: JSONRPCMessage) => void) {
  const [clientSide, peer] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  peer.onmessage = (m) => {
    if ('method' in m && m.method === 'initialize' && 'id' in m) {
      void peer.send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'peer', version: '1' } } });
    } else if (!('method' in m && m.method === 'notifications/initialized')) sent.push(m);
  };
  await peer.start();
  const errors: string[] = [];
  const notifications: unknown[] = [];
  client.onerror = (e) => errors.push(e.message);
  client.fallbackNotificationHandler = async (n) => void notifications.push(n);
  if (prior) clientSide.onmessage = prior;
  await client.connect(clientSide);
  return {
    sent,
    errors,
    notifications,
    async deliver(messages: readonly unknown[]) {
      for (const m of messages) await peer.send(m as JSONRPCMessage);
      for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
    },
  };
}

const MESSAGES: readonly unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 'two', method: 'no/such/method', params: {} },
  { jsonrpc: '2.0', id: 3, method: 'ping', extra: true }, // strict schemas: not a request, not a notification
  { jsonrpc: '1.0', id: 4, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', method: 5 },
  { jsonrpc: '2.0', method: 'ping', result: {} },
  { jsonrpc: '2.0', method: 'notifications/custom', params: { a: 1 } },
  { jsonrpc: '2.0', method: 'notifications/custom', params: 'not an object' },
  { jsonrpc: '2.0', id: 99, result: {} }, // a response to nothing
  { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x' } }, // a server has no tools to call here
  { jsonrpc: '2.0', id: 6, method: 'sampling/createMessage', params: { messages: 'nope' } }, // no handler on either
];

describe('HostClient: incoming messages', () => {
  it('answers, errors and notifications are those of the bare SDK client, message by message', async () => {
    const bare = await rig(new Client({ name: 'c', version: '1' }, { capabilities: HOST_CAPABILITIES }));
    const host = await rig(new HostClient({ name: 'c', version: '1' }, { capabilities: HOST_CAPABILITIES }));
    await bare.deliver(MESSAGES);
    await host.deliver(MESSAGES);
    assert.ok(bare.sent.length >= 3 && bare.errors.length >= 5 && bare.notifications.length >= 1, 'the messages exercise every path');
    assert.deepEqual(host.sent, bare.sent);
    assert.deepEqual(host.errors, bare.errors);
    assert.deepEqual(host.notifications, bare.notifications);
  });

  it('the handler the transport had before connecting still sees every message first, as with the SDK', async () => {
    const seen: { bare: unknown[]; host: unknown[] } = { bare: [], host: [] };
    const ledger = new TaskLedger({});
    try {
      const bare = await rig(new Client({ name: 'c', version: '1' }, { capabilities: HOST_CAPABILITIES, taskStore: new InMemoryTaskStore() }), (m) => seen.bare.push(m));
      const host = await rig(new HostClient({ name: 'c', version: '1' }, { capabilities: HOST_CAPABILITIES, taskStore: ledger.scope('s', 'server') }), (m) => seen.host.push(m));
      const messages = [...MESSAGES, { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'unknown' } }];
      await bare.deliver(messages);
      await host.deliver(messages);
      assert.deepEqual(seen.host, seen.bare);
      assert.equal(seen.host.length, messages.length + 1, 'every message, the initialize answer too');
    } finally {
      ledger.dispose();
    }
  });

  it("R-TASK-2: tasks/get is answered where it arrives, from the ledger, with the answers and errors of the SDK's dispatch", async () => {
    const ledger = new TaskLedger({});
    try {
      const scope = ledger.scope('s', 'server');
      const task = await scope.createTask({ ttl: 60_000 }, 1, { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
      const host = await rig(new HostClient({ name: 'c', version: '1' }, { capabilities: HOST_CAPABILITIES, taskStore: scope }));

      await host.deliver([{ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: task.taskId } }]);
      assert.deepEqual(host.sent, [{ jsonrpc: '2.0', id: 1, result: { ...scope.getTaskNow(task.taskId) } }]);
      assert.equal(scope.operationsAdmitted, 1, 'R-SEC-3: charged once');

      // Odd input takes the SDK's dispatch, which answers the same task (and charges once too).
      await host.deliver([{ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: task.taskId, task: { ttl: 1 } } }]);
      assert.deepEqual(host.sent[1], { jsonrpc: '2.0', id: 2, result: { ...scope.getTaskNow(task.taskId) } });
      assert.equal(scope.operationsAdmitted, 2);

      // Errors as the SDK's dispatch sends them for our handler: code, message without a doubled prefix.
      await host.deliver([
        { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: 'nope' } },
        { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: {} },
      ]);
      assert.deepEqual(host.sent.slice(2), [
        { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Failed to retrieve task: Task not found' } },
        { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params for tasks/get: "taskId": Invalid input: expected string, received undefined' } },
      ]);
    } finally {
      ledger.dispose();
    }
  });

  it('a store that fails unexpectedly answers tasks/get with -32603 and its message, as the SDK dispatch does for a plain Error', async () => {
    const store = {
      admit: () => undefined,
      getTaskNow: () => {
        throw new Error('the ledger is gone');
      },
    };
    const host = await rig(new HostClient({ name: 'c', version: '1' }, { capabilities: HOST_CAPABILITIES, taskStore: store as never }));
    await host.deliver([{ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 't' } }]);
    assert.deepEqual(host.sent, [{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'the ledger is gone' } }]);
  });
});
