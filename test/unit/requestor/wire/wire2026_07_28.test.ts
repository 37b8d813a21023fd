/**
 * The 2026-07-28 task wire (requestor/wire/wire2026_07_28.ts) on the library's core/v2 schemas.
 * Sections: modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ProtocolError as McpError } from '../../../../src/core/base/errors.js';
import type { HostClient } from '../../../../src/core/connection/hostClient.js';
import { TASK_ANSWER_CODE } from '../../../../src/core/requestor/wire/tasksExtension.js';
import { taskAnswersOf } from '../../../../src/core/requestor/wire/taskWireSide.js';
import { wireByGeneration, wireForCapabilities } from '../../../../src/core/requestor/wire/select.js';
import { missingCapabilityMessage, wire2026_07_28 as wire } from '../../../../src/core/requestor/wire/wire2026_07_28.js';

const BASE = { taskId: 't1', createdAt: '2026-07-28T00:00:00Z', lastUpdatedAt: '2026-07-28T00:00:01Z', ttlMs: 60_000, pollIntervalMs: 500 };
const signal = new AbortController().signal;
const noProgress = { signal, onprogress: () => undefined };

/**
 * A client answering each request with the next answer, as the SDK hands answers over: without
 * `resultType`; a `tools/call` answered with a task arrives as the connection's stand-in error
 * (requestor/wire/tasksExtension.ts).
 */
function clientAnswering(...answers: unknown[]): HostClient & { sent: unknown[] } {
  const sent: unknown[] = [];
  const next = () => {
    const { resultType, ...rest } = answers.shift() as Record<string, unknown>;
    return { resultType, rest };
  };
  const client = {
    sent,
    request: async (req: unknown) => {
      sent.push(req);
      return next().rest;
    },
    callTool: async (params: unknown) => {
      sent.push({ method: 'tools/call', params });
      const { resultType, rest } = next();
      if (resultType === 'task') throw Object.assign(new Error('the server made this call a task'), { code: TASK_ANSWER_CODE, data: { taskAnswer: taskAnswersOf(client).keep({ resultType, ...rest }) } });
      return rest;
    },
  };
  return client as unknown as HostClient & { sent: unknown[] };
}

describe('wire 2026-07-28', () => {
  it('§Capability Negotiation: chosen for a server declaring capabilities.extensions["io.modelcontextprotocol/tasks"]; 2025-11-25 otherwise', () => {
    assert.equal(wireForCapabilities({ extensions: { 'io.modelcontextprotocol/tasks': {} } }).generation, '2026-07-28');
    assert.equal(wireForCapabilities({ tasks: { requests: { tools: { call: {} } } } }).generation, '2025-11-25');
    assert.equal(wireForCapabilities(undefined).generation, '2025-11-25');
    assert.equal(wireByGeneration('2026-07-28'), wire);
    assert.equal(wireByGeneration('1999-01-01'), undefined);
    assert.equal(wire.serverDecides, true);
    assert.equal(wire.listsTasks({}), false);
  });

  it('§Polymorphic Results: tools/call goes out plainly; a CreateTaskResult becomes the task (ttlMs → ttl, pollIntervalMs → pollInterval), a complete result the result', async () => {
    const client = clientAnswering(
      { resultType: 'task', status: 'working', ...BASE },
      { resultType: 'complete', content: [{ type: 'text', text: 'now' }] },
      { content: [{ type: 'text', text: 'old server' }] },
    );
    assert.deepEqual(await wire.createToolTask(client, { name: 'a', arguments: { x: 1 } }, noProgress), {
      taskId: 't1', status: 'working', createdAt: BASE.createdAt, lastUpdatedAt: BASE.lastUpdatedAt, ttl: 60_000, pollInterval: 500,
    });
    assert.deepEqual(client.sent[0], { method: 'tools/call', params: { name: 'a', arguments: { x: 1 } } });
    const plain = await wire.createToolTask(client, { name: 'a', arguments: {} }, noProgress);
    assert.ok('result' in plain && plain.result.content[0]?.type === 'text');
    const older = await wire.createToolTask(client, { name: 'a', arguments: {} }, noProgress);
    assert.ok('result' in older);
  });

  it('§Polymorphic Results: an invalid CreateTaskResult is rejected by the library schema', async () => {
    await assert.rejects(wire.createToolTask(clientAnswering({ resultType: 'task', status: 'working', taskId: 't1' }), { name: 'a', arguments: {} }, noProgress), /ttlMs|createdAt/);
  });

  it('§Task Polling: tasks/get inlines the result, the error, or the inputRequests; ttlMs null stays null', async () => {
    const done = await wire.getTask(clientAnswering({ resultType: 'complete', status: 'completed', ...BASE, ttlMs: null, result: { content: [{ type: 'text', text: 'ok' }] } }), 't1', signal);
    assert.equal(done.ttl, null);
    assert.deepEqual(done.inline?.outcome, { kind: 'result', result: { content: [{ type: 'text', text: 'ok' }] } });
    const failed = await wire.getTask(clientAnswering({ resultType: 'complete', status: 'failed', ...BASE, error: { code: -32603, message: 'boom' } }), 't1', signal);
    assert.deepEqual(failed.inline?.outcome, { kind: 'error', code: -32603, message: 'boom' });
    const input = await wire.getTask(
      clientAnswering({ resultType: 'complete', status: 'input_required', ...BASE, inputRequests: { k: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } } } }),
      't1',
      signal,
    );
    assert.deepEqual(Object.keys(input.inline?.inputRequests ?? {}), ['k']);
    await assert.rejects(wire.getTask(clientAnswering({ resultType: 'complete', status: 'completed', ...BASE }), 't1', signal), 'completed without result is invalid');
  });

  it('§Task Update Requests / §Task Cancellation: tasks/update sends inputResponses by key; tasks/cancel is an acknowledgement', async () => {
    const client = clientAnswering({ resultType: 'complete' }, { resultType: 'complete' });
    await wire.updateTask!(client, 't1', { k: { action: 'accept', content: { name: 'x' } } }, signal);
    assert.equal(await wire.cancelTask(client, 't1', signal), undefined);
    assert.deepEqual(client.sent, [
      { method: 'tasks/update', params: { taskId: 't1', inputResponses: { k: { action: 'accept', content: { name: 'x' } } } } },
      { method: 'tasks/cancel', params: { taskId: 't1' } },
    ]);
  });

  it('§Task Status Notifications: decodes notifications/tasks with its inline result; ignores others and malformed ones', () => {
    const msg = { jsonrpc: '2.0', method: 'notifications/tasks', params: { status: 'completed', ...BASE, result: { content: [] } } } as JSONRPCMessage;
    const task = wire.statusNotification(msg);
    assert.equal(task?.status, 'completed');
    assert.deepEqual(task?.inline?.outcome, { kind: 'result', result: { content: [] } });
    assert.equal(wire.statusNotification({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { status: 'working', ...BASE } } as JSONRPCMessage), undefined);
    assert.equal(wire.statusNotification({ jsonrpc: '2.0', method: 'notifications/tasks', params: { taskId: 5 } } as JSONRPCMessage), undefined);
  });

  it('§Capability Negotiation: -32021 becomes a message naming the server and the capability', () => {
    const e = new McpError(-32021, 'Missing required client capability', { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    assert.match(missingCapabilityMessage(e, 'weather', '2025-11-25')!, /^"weather" requires the client capability "io\.modelcontextprotocol\/tasks" .*did not declare the extension/);
    assert.match(missingCapabilityMessage(e, 'weather', '2026-07-28')!, /although this host declared it/);
    assert.match(missingCapabilityMessage(new McpError(-32021, 'x', { requiredCapabilities: { extensions: { 'acme/other': {} } } }), 'w', '2025-11-25')!, /"acme\/other", which this host does not support/);
    assert.equal(missingCapabilityMessage(new McpError(-32602, 'x'), 'w', '2025-11-25'), undefined);
  });
});
