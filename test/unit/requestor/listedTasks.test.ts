/**
 * Tasks a server names in `tasks/list` (R-LIST) are its word, not calls of ours: at most
 * MAX_LISTED_TASKS_PER_SERVER are kept per server, none is polled, fetched or answered until the
 * user opens it, and a list that names more is cut there (requestor/identity.ts).
 */
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { MAX_LISTED_TASKS_PER_SERVER } from '../../../src/core/config/limits.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import type { InputRequest, TaskWire, WireTask } from '../../../src/core/requestor/wire/taskWire.js';
import { wire2025_11_25 } from '../../../src/core/requestor/wire/wire2025_11_25.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance } from '../../helpers/fakeTime.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

/** A server whose tasks/list names `n` tasks created elsewhere, polled every 100 ms if anyone polls. */
function listingServer(n: number, status: Task['status'] = 'working') {
  const server = new FakeTaskServer();
  const now = new Date(Date.now()).toISOString();
  for (let i = 0; i < n; i++) {
    const task: Task = { taskId: `else-${i}`, status, createdAt: now, lastUpdatedAt: now, ttl: null, pollInterval: 100 };
    server.tasks.set(task.taskId, { task, waiters: [] });
  }
  const c = server.connection(definition('demo'));
  const t = new TaskTracker({ connectionFor: () => c, minPollIntervalMs: 10, now: () => Date.now() });
  return { server, c, t };
}

describe('tasks from tasks/list', () => {
  test('1,500 listed tasks: at most the cap is kept, and none is polled or fetched until opened', async () => {
    const { server, c, t } = listingServer(1500);
    try {
      const added = await t.mergeServerList(c);
      assert.equal(added, MAX_LISTED_TASKS_PER_SERVER);
      const listed = t.snapshot().filter((s) => s.origin === 'listed');
      assert.equal(listed.length, MAX_LISTED_TASKS_PER_SERVER);
      assert.ok(listed.every((s) => s.phase === 'tracking' && /Listed by the server/.test(s.reason ?? '')), 'shown as listed, saying how to follow one');
      await advance(2000);
      assert.equal(server.count('tasks/get'), 0, 'no listed task is polled');
      assert.equal(server.count('tasks/result'), 0);
      // Refresh (and every connect) lists again: the count stays at the cap.
      assert.equal(await t.mergeServerList(c), 0);
      assert.equal(t.snapshot().filter((s) => s.origin === 'listed').length, MAX_LISTED_TASKS_PER_SERVER);
    } finally {
      t.dispose();
    }
  });

  test('a listed task is refreshed by the next list; opened, it is followed to its result; finished ones are fetched only when opened', async () => {
    const { server, c, t } = listingServer(2);
    try {
      await t.mergeServerList(c);
      server.set('else-1', 'completed');
      await t.mergeServerList(c);
      const done = t.get('demo/else-1')!;
      assert.equal(done.phase, 'done', 'the list said completed');
      assert.equal(done.outcome, undefined, 'not fetched by itself');
      assert.equal(server.count('tasks/result'), 0);
      await t.onServerRunning(c); // a reconnect resumes nothing listed
      await advance(500);
      assert.equal(server.count('tasks/get'), 0);

      assert.equal(t.follow('demo/else-0'), true, 'opened');
      await advance(150);
      assert.ok(server.count('tasks/get', 'else-0') >= 1, 'polled once followed');
      server.set('else-0', 'completed');
      await advance(300);
      assert.equal(t.get('demo/else-0')?.outcome?.kind, 'result');
      const after = await t.retrieve('demo/else-1');
      assert.equal(after.outcome?.kind, 'result', 'Retrieve Result on a finished listed task fetches it');
      assert.equal(t.follow('demo/else-0'), false, 'already followed');
    } finally {
      t.dispose();
    }
  });

  test('2026-07-28: a listed input_required task opens no prompt by itself; once opened, its requests are answered', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const asked: string[] = [];
    // The connection's receiver side answers the task's questions (receiver/wire/receiverSide.ts).
    (c.sides as unknown as object[]).push({
      kind: 'receiver',
      respondToInput: async (r: InputRequest) => {
        asked.push(r.method);
        return { action: 'decline' };
      },
    });
    const now = new Date(Date.now()).toISOString();
    const waiting: WireTask = {
      taskId: 'needs-you',
      status: 'input_required',
      createdAt: now,
      lastUpdatedAt: now,
      ttl: null,
      pollInterval: 100,
      inline: { inputRequests: { k1: { method: 'elicitation/create', params: { mode: 'form', message: 'Approve?', requestedSchema: { type: 'object', properties: {} } } } } },
    };
    const updates: string[] = [];
    const wire: TaskWire = {
      ...wire2025_11_25,
      generation: '2026-07-28',
      listTasks: async () => ({ tasks: [waiting] }),
      getTask: async () => waiting,
      updateTask: async (_client, _id, responses) => void updates.push(...Object.keys(responses)),
    };
    const t = new TaskTracker({ connectionFor: () => c, wireFor: () => wire, minPollIntervalMs: 10, now: () => Date.now() });
    try {
      assert.equal(await t.mergeServerList(c), 1);
      await advance(1000);
      assert.deepEqual(asked, [], 'no form opened by a listed task');
      assert.equal(t.get('demo/needs-you')?.phase, 'tracking');
      t.follow('demo/needs-you');
      await advance(200);
      assert.deepEqual(asked, ['elicitation/create'], 'opened by the user: answered through the responders');
      assert.deepEqual(updates, ['k1']);
    } finally {
      t.dispose();
    }
  });
});
