/**
 * The SDK private state the host reaches into (connection/sdkInternals.ts): present in the installed
 * SDK, and restored on a client as the resumed session describes it. Fails on an SDK that changed shape.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { continueRequestIds, requestDispatchOf, requestDispatchProblems, requestIdsOf, restoreSessionState, sdkShapeProblems } from '../../../src/core/connection/sdkInternals.js';

test('the installed MCP SDK has every private field a resumed session needs', () => {
  assert.deepEqual(sdkShapeProblems(), []);
});

test('a client given a session\'s state knows the server as the handshake described it', () => {
  const client = new Client({ name: 'c', version: '1' });
  restoreSessionState(client, { capabilities: { tools: { listChanged: true } }, serverInfo: { name: 's', version: '2' }, instructions: 'hi', protocolVersion: '2025-11-25' });
  assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: true } });
  assert.deepEqual(client.getServerVersion(), { name: 's', version: '2' });
  assert.equal(client.getInstructions(), 'hi');
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  assert.equal(client.getProtocolEra(), 'legacy');
});

test('the installed MCP SDK has the request dispatch incoming messages are handed to', () => {
  assert.deepEqual(requestDispatchProblems(), []);
  const client = new Client({ name: 'c', version: '1' });
  assert.equal(typeof requestDispatchOf(client), 'function');
});

/** A client on a transport that already has its session (as a reattached hosted stdio server's): the SDK's connect skips the handshake. */
async function reattachedClient(): Promise<{ client: Client; sent: Array<{ id?: unknown; method?: string }> }> {
  const sent: Array<{ id?: unknown; method?: string }> = [];
  const transport = {
    sessionId: 'reattached',
    onmessage: undefined as ((m: unknown) => void) | undefined,
    async start() {},
    async close() {},
    async send(m: { id?: unknown; method?: string }) {
      sent.push(m);
      if (m.id !== undefined) queueMicrotask(() => transport.onmessage?.({ jsonrpc: '2.0', id: m.id, result: {} }));
    },
  };
  const client = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport as never);
  restoreSessionState(client, { capabilities: {}, protocolVersion: '2025-11-25' });
  return { client, sent };
}

test('a reattached session numbers its requests after the last window\'s (continueRequestIds)', async () => {
  const { client, sent } = await reattachedClient();
  continueRequestIds(client, 42);
  await client.ping();
  assert.deepEqual(sent.map((m) => [m.method, m.id]), [['ping', 42]], 'no initialize, and the id after the last window\'s');
});

test('the host\'s own requests take their ids from the SDK\'s counter (requestIdsOf): one id space, continued on a reattached session', async () => {
  const { client, sent } = await reattachedClient();
  continueRequestIds(client, 7);
  const nextId = requestIdsOf(client)!;
  assert.equal(nextId(), 7);
  await client.ping();
  assert.equal(nextId(), 9);
  assert.deepEqual(sent.map((m) => [m.method, m.id]), [['ping', 8]], 'the SDK\'s own request took the id between');
});
