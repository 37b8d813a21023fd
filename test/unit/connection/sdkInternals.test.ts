/**
 * The SDK private state the host reaches into (connection/sdkInternals.ts): present in the installed
 * SDK, and restored on a client as the resumed session describes it. Fails on an SDK that changed shape.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { requestDispatchOf, requestDispatchProblems, restoreSessionState, sdkShapeProblems } from '../../../src/core/connection/sdkInternals.js';

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
