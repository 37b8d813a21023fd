/** The 2025-11-25 task wire (requestor/wire/wire2025_11_25.ts): what it reads and what it sends. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { HostClient } from '../../../../src/core/connection/hostClient.js';
import { wire2025_11_25 as wire } from '../../../../src/core/requestor/wire/wire2025_11_25.js';

const TASK = { taskId: 't1', status: 'working', ttl: 60_000, createdAt: '2025-11-25T00:00:00Z', lastUpdatedAt: '2025-11-25T00:00:00Z', pollInterval: 500 } as const;

describe('wire 2025-11-25', () => {
  it('R-CAP-3: reads tools/call task support and tasks/list from the server capabilities', () => {
    assert.equal(wire.toolCallsAsTasks({ tasks: { requests: { tools: { call: {} } } } }), true);
    assert.equal(wire.toolCallsAsTasks({ tasks: { list: {} } }), false);
    assert.equal(wire.toolCallsAsTasks(undefined), false);
    assert.equal(wire.listsTasks({ tasks: { list: {} } }), true);
    assert.equal(wire.listsTasks({}), false);
  });

  it('R-NOTIFY-2: decodes notifications/tasks/status without its _meta; ignores other or malformed messages', () => {
    const msg = { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { ...TASK, _meta: { x: 1 } } } as JSONRPCMessage;
    assert.deepEqual(wire.statusNotification(msg), TASK);
    assert.equal(wire.statusNotification({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } } as JSONRPCMessage), undefined);
    assert.equal(wire.statusNotification({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 5 } } as JSONRPCMessage), undefined);
    assert.equal(wire.statusNotification({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage), undefined);
  });

  it('R-TASK-1: sends tools/call with the task augmentation (ttl when given) and answers the created task', async () => {
    const sent: unknown[] = [];
    const client = {
      request: async (req: unknown) => {
        sent.push(req);
        return { task: TASK };
      },
      taskProgressToken: () => 'p1',
      bindTaskProgress: () => undefined,
      releaseTaskProgress: () => undefined,
    } as unknown as HostClient;
    const signal = new AbortController().signal;
    const task = await wire.createToolTask(client, { name: 'slow', arguments: { n: 1 } }, { ttl: 1000, signal, onprogress: () => undefined });
    assert.deepEqual(task, TASK);
    await wire.createToolTask(client, { name: 'slow', arguments: {} }, { signal, onprogress: () => undefined });
    assert.deepEqual(sent, [
      { method: 'tools/call', params: { name: 'slow', arguments: { n: 1 }, task: { ttl: 1000 }, _meta: { progressToken: 'p1' } } },
      { method: 'tools/call', params: { name: 'slow', arguments: {}, task: {}, _meta: { progressToken: 'p1' } } },
    ]);
  });
});
