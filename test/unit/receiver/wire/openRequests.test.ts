/**
 * A plain sampling or elicitation request (no `task`) holds a prompt open just like a task does:
 * it counts against the server's limit (`maxLiveTasksPerServer`), so a server cannot park an
 * unbounded number of prompts by leaving `task` out (receiver/wire/responders.ts, ServerTasks.openRequest).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { serveRequest } from '../../../../src/core/receiver/wire/responders.js';
import { TaskLedger } from '../../../../src/core/receiver/ledger.js';
import { stdioDefinition } from '../../../helpers/host.js';
import { checkLeaks } from '../../../helpers/leaks.js';

const server = { serverId: 's', serverName: 'S', definition: stdioDefinition('s', 'node', []) };

describe('plain requests count against the per-server limit', () => {
  checkLeaks();

  it('beyond the limit a plain request is refused at once (-32600, naming the server and the setting), whether the budget is held by plain requests or tasks; answered ones free it', async () => {
    const ledger = new TaskLedger({ limits: { maxLiveTasksPerServer: 3 } });
    const scope = ledger.forServer('s', 'S');
    const releases: Array<() => void> = [];
    const held = () => new Promise<{ action: 'decline' }>((r) => releases.push(() => r({ action: 'decline' })));
    const plain = (id: number) => serveRequest(scope, server, { method: 'elicitation/create', params: { message: `m${id}` } as { message: string; task?: undefined }, requestId: id, signal: new AbortController().signal }, held);
    const answers = [plain(1), plain(2)];
    await scope.createTask({ ttl: 60_000 }, 3, { method: 'sampling/createMessage', params: {} });
    assert.equal(scope.openRequestCount, 2);
    await assert.rejects(plain(4), (e: { code?: number; message?: string }) => e.code === ErrorCode.InvalidRequest && /Too many open requests: server "S" already has 1 active tasks and 2 requests waiting.*limit 3.*mcpTasks\.receiver\.maxLiveTasksPerServer/.test(e.message ?? ''));
    await assert.rejects(scope.createTask({ ttl: 60_000 }, 5, { method: 'sampling/createMessage', params: {} }), /Too many active tasks/, 'a task is refused too while plain requests hold the budget');
    assert.equal(releases.length, 2, 'the refused request never reached the responder');
    releases[0]!();
    assert.deepEqual(await answers[0], { action: 'decline' });
    assert.equal(scope.openRequestCount, 1);
    const sixth = plain(6);
    assert.equal(scope.openRequestCount, 2, 'a slot was free again: this one is taken');
    for (const r of releases.splice(0)) r();
    assert.deepEqual(await sixth, { action: 'decline' });
    ledger.dispose();
  });

  it('a responder that fails frees its slot too', async () => {
    const ledger = new TaskLedger({ limits: { maxLiveTasksPerServer: 1 } });
    const scope = ledger.forServer('s', 'S');
    const call = () => serveRequest(scope, server, { method: 'sampling/createMessage', params: {}, requestId: 1, signal: new AbortController().signal }, async () => {
      throw new Error('denied');
    });
    await assert.rejects(call(), /denied/);
    await assert.rejects(call(), /denied/, 'not "too many": the first one freed its slot');
    assert.equal(scope.openRequestCount, 0);
    ledger.dispose();
  });
});
