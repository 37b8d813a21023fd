/**
 * The depth bound where a server's messages arrive (connection/messageBounds.ts): a message nested
 * deeper than the limit never reaches the SDK or any consumer, and the request waiting for it ends
 * with the reason instead of hanging or breaking every server's snapshot later.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ProtocolError as McpError } from '../../../src/core/base/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/core/base/jsonDepth.js';
import { isRefusedByHost, MessageBoundsTransport } from '../../../src/core/connection/messageBounds.js';
import { MAX_REQUEST_STATE_CHARS } from '../../../src/core/config/limits.js';
import { nestedValue } from '../../helpers/deepJson.js';

function fakeTransport() {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (m) => void sent.push(m),
  };
  const bounded = new MessageBoundsTransport(inner);
  const delivered: JSONRPCMessage[] = [];
  const errors: string[] = [];
  bounded.onmessage = (m) => void delivered.push(m);
  bounded.onerror = (e) => void errors.push(e.message);
  return { receive: (m: unknown) => inner.onmessage!(m as JSONRPCMessage), sent, delivered, errors };
}

describe('depth bound on incoming messages', () => {
  test('nestsDeeperThan counts arrays and objects, the value itself being level 1, and stops at the limit', () => {
    assert.equal(nestsDeeperThan('x', 0), false);
    assert.equal(nestsDeeperThan({}, 1), false);
    assert.equal(nestsDeeperThan({}, 0), true);
    assert.equal(nestsDeeperThan([[[1]]], 3), false);
    assert.equal(nestsDeeperThan([[[1]]], 2), true);
    assert.equal(nestsDeeperThan({ a: 1, b: [{ c: {} }] }, 4), false);
    assert.equal(nestsDeeperThan({ a: 1, b: [{ c: {} }] }, 3), true);
    assert.equal(nestsDeeperThan(nestedValue(MAX_JSON_DEPTH)), false);
    assert.equal(nestsDeeperThan(nestedValue(MAX_JSON_DEPTH + 1)), true);
    // Far deeper than the JavaScript stack would allow a recursive walk to go.
    assert.equal(nestsDeeperThan(nestedValue(200_000)), true);
  });

  test('an answer nested too deep becomes an error answer to the same request, marked as refused here; a normal one passes unchanged', () => {
    const t = fakeTransport();
    const ok = { jsonrpc: '2.0', id: 1, result: { structuredContent: nestedValue(20) } };
    t.receive(ok);
    assert.equal(t.delivered[0], ok, 'passed through as it is');
    t.receive({ jsonrpc: '2.0', id: 2, result: { content: [], structuredContent: nestedValue(5000) } });
    const refused = t.delivered[1] as { id: number; error: { code: number; message: string; data: unknown } };
    assert.equal(refused.id, 2);
    assert.equal(refused.error.code, -32700);
    assert.match(refused.error.message, new RegExp(`refused the answer: it nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`));
    assert.deepEqual(refused.error.data, { refusedByHost: true, maxDepth: MAX_JSON_DEPTH });
    assert.equal(t.errors.length, 1, 'reported, for the log');
    assert.equal(t.sent.length, 0);
  });

  test('a request nested too deep is answered -32602 and never dispatched; a notification is dropped; both are reported', () => {
    const t = fakeTransport();
    t.receive({ jsonrpc: '2.0', id: 'r1', method: 'elicitation/create', params: { message: 'm', requestedSchema: nestedValue(5000) } });
    t.receive({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: nestedValue(5000) });
    assert.deepEqual(t.delivered, []);
    assert.equal(t.sent.length, 1);
    const answer = t.sent[0] as { id: string; error: { code: number; message: string } };
    assert.equal(answer.id, 'r1');
    assert.equal(answer.error.code, -32602);
    assert.match(answer.error.message, /refused the elicitation\/create request/);
    assert.equal(t.errors.length, 2);
    assert.match(t.errors[1]!, /notifications\/tasks\/status notification/);
  });

  test(`an input_required answer whose requestState is over ${MAX_REQUEST_STATE_CHARS} characters becomes an error answer to the same request, with the sizes; at the limit it passes`, () => {
    const t = fakeTransport();
    const atLimit = { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', requestState: 's'.repeat(MAX_REQUEST_STATE_CHARS) } };
    t.receive(atLimit);
    assert.equal(t.delivered[0], atLimit, 'passed through as it is');
    // Only input_required answers carry a requestState to echo: another result is not judged by it.
    const complete = { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', content: [], requestState: 's'.repeat(MAX_REQUEST_STATE_CHARS + 1) } };
    t.receive(complete);
    assert.equal(t.delivered[1], complete);
    t.receive({ jsonrpc: '2.0', id: 3, result: { resultType: 'input_required', requestState: 's'.repeat(2 * MAX_REQUEST_STATE_CHARS) } });
    const refused = t.delivered[2] as { id: number; error: { code: number; message: string; data: unknown } };
    assert.equal(refused.id, 3);
    assert.equal(refused.error.code, -32700);
    assert.equal(refused.error.message, `this host refused the answer: its requestState is 524,288 characters, over the 262,144-character limit (it would be sent back on every input_required round)`);
    assert.deepEqual(refused.error.data, { refusedByHost: true, maxRequestStateChars: MAX_REQUEST_STATE_CHARS });
    assert.equal(t.errors.length, 1, 'reported, for the log');
    assert.match(t.errors[0]!, /requestState is 524,288 characters.*\(id 3\)$/);
  });

  test('isRefusedByHost tells the refusal from a server error with the same code', () => {
    assert.equal(isRefusedByHost(new McpError(-32700, 'x', { refusedByHost: true, maxDepth: 128 })), true);
    assert.equal(isRefusedByHost(new McpError(-32700, 'x')), false);
    assert.equal(isRefusedByHost(new Error('x')), false);
  });
});
