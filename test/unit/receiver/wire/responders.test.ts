/** How a received request becomes a ledger task or a plain answer (receiver/wire/responders.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { relatedTaskOf, serveRequest } from '../../../../src/core/receiver/wire/responders.js';
import { TaskLedger } from '../../../../src/core/receiver/ledger.js';
import { stdioDefinition } from '../../../helpers/host.js';
import { checkLeaks } from '../../../helpers/leaks.js';

const server = { serverId: 's', serverName: 'S', definition: stdioDefinition('s', 'node', []) };

describe('serveRequest', () => {
  checkLeaks();

  it('R-TASK-1: with params.task, answers the created task at once and runs the responder as its work', async () => {
    const ledger = new TaskLedger();
    const scope = ledger.forServer('s', 'S');
    let release!: () => void;
    const answered = await serveRequest(scope, server, { method: 'elicitation/create', params: { task: { ttl: 60_000 }, message: 'hi' }, requestId: 1, signal: new AbortController().signal }, async (params, ctx) => {
      assert.deepEqual(params, { message: 'hi' }, 'the task params are not passed on');
      assert.ok(ctx.taskId);
      await new Promise<void>((r) => (release = r));
      return { action: 'decline' };
    });
    assert.ok('task' in answered);
    const taskId = (answered as { task: { taskId: string; status: string } }).task.taskId;
    assert.equal(scope.get(taskId)?.task.status, 'working');
    release();
    await scope.whenTerminal(taskId, new AbortController().signal);
    assert.equal(scope.get(taskId)?.task.status, 'completed');
    ledger.dispose();
  });

  it('without params.task, answers the responder result and passes the related task id', async () => {
    const ledger = new TaskLedger();
    const params = { message: 'hi', _meta: { [RELATED_TASK_META_KEY]: { taskId: 'server-task' } } };
    const answered = await serveRequest(ledger.forServer('s', 'S'), server, { method: 'elicitation/create', params, requestId: 1, signal: new AbortController().signal }, async (_p, ctx) => {
      assert.equal(ctx.taskId, undefined);
      assert.equal(ctx.relatedTaskId, 'server-task');
      return { action: 'cancel' };
    });
    assert.deepEqual(answered, { action: 'cancel' });
    assert.equal(ledger.forServer('s', 'S').liveCount, 0);
    assert.equal(relatedTaskOf({ _meta: { [RELATED_TASK_META_KEY]: { taskId: 7 } } }), undefined, 'a non-string task id is ignored');
    ledger.dispose();
  });
});
