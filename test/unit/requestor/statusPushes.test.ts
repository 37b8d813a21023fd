/**
 * Status notifications a server pushes about the tasks sent to it (requestor/taskUpdates.ts), on
 * fake time against a scripted server: a flood about one task is taken in at most once per
 * {@link PUSH_COALESCE_MS} (the latest wins, a terminal status at once), and one about a task id no
 * task was sent with changes nothing and is logged, a bounded number of times.
 */
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { ServerLog } from '../../../src/core/base/log.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { PUSH_COALESCE_MS } from '../../../src/core/requestor/taskUpdates.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance, flush } from '../../helpers/fakeTime.js';
import { checkLeaks } from '../../helpers/leaks.js';

checkLeaks();

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

const TOOL = { name: 'work', execution: { taskSupport: 'required' as const } };

function recordingLog(): ServerLog & { readonly lines: string[] } {
  const lines: string[] = [];
  const log = (l: string) => void lines.push(l);
  return { lines, trace: log, debug: log, info: log, warn: log, error: log, traceEnabled: false };
}

async function setUp() {
  const server = new FakeTaskServer();
  server.pollInterval = 60_000; // no poll during the test: what changes comes from the pushes
  const c = server.connection(definition('demo'));
  const log = recordingLog();
  Object.assign(c, { log });
  const t = new TaskTracker({ connectionFor: () => c, minPollIntervalMs: 10, now: () => Date.now() });
  const key = await t.callTool(c, TOOL, {});
  const id = t.get(key)!.task!.taskId;
  let changes = 0;
  const sub = t.onDidChange((e) => void (e.key === key && changes++));
  return { server, t, key, id, log, changes: () => changes, dispose: () => (sub.dispose(), t.dispose(), server.dispose()) };
}

describe('status notifications about a sent task', () => {
  test(`a flood about one task is taken in at most once per ${PUSH_COALESCE_MS} ms, the latest one winning; a terminal status at once`, async () => {
    const h = await setUp();
    for (let i = 0; i < 1000; i++) {
      h.server.notify(h.id, { statusMessage: `step ${i}`, lastUpdatedAt: new Date(Date.now()).toISOString() });
      await advance(1, 1);
    }
    assert.ok(h.changes() >= 5 && h.changes() <= 1000 / PUSH_COALESCE_MS + 1, `1,000 pushes in 1 s → ${h.changes()} changes`);
    await advance(PUSH_COALESCE_MS);
    assert.equal(h.t.get(h.key)?.task?.statusMessage, 'step 999', 'the last push of the flood is taken in when its window closes');
    h.server.notify(h.id, { statusMessage: 'one more' });
    await flush();
    assert.equal(h.t.get(h.key)?.task?.statusMessage, 'one more', 'the first push after a quiet window is taken in at once');
    h.server.set(h.id, 'completed');
    h.server.notify(h.id);
    await flush();
    assert.equal(h.t.get(h.key)?.task?.status, 'completed', 'a terminal status is not held back by the window the push before opened');
    h.dispose();
  });

  test('a push that comes before the CreateTaskResult naming its task (in the same read) is taken in once the task is named', async () => {
    const server = new FakeTaskServer();
    server.pollInterval = 60_000; // no poll during the test: only the early push can tell
    server.finishBeforeAnswer = 'completed';
    const c = server.connection(definition('demo'));
    const log = recordingLog();
    Object.assign(c, { log });
    const t = new TaskTracker({ connectionFor: () => c, minPollIntervalMs: 10, now: () => Date.now() });
    try {
      const key = await t.callTool(c, TOOL, {});
      await flush();
      assert.equal(t.get(key)?.task?.status, 'completed', 'the push that came first is not lost');
      assert.equal(server.count('tasks/get'), 0, 'no tasks/get was due');
      assert.deepEqual(log.lines, [], 'not warned about as an id no task was sent with');
    } finally {
      t.dispose();
      server.dispose();
    }
  });

  test('a push naming a task id no task was sent with changes nothing and is logged, at most 20 times in 10 s, then summed up', async () => {
    const h = await setUp();
    const forged = (taskId: string) =>
      h.server.notifyMessage({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId, status: 'completed', createdAt: new Date(0).toISOString(), lastUpdatedAt: new Date(0).toISOString(), ttl: null } } as JSONRPCMessage);
    forged(`never\r\nissued ${'x'.repeat(100_000)}`);
    for (let i = 0; i < 99; i++) forged(`guess-${i}`);
    await flush();
    assert.equal(h.t.get(h.key)?.task?.status, 'working');
    assert.equal(h.t.snapshot().length, 1, 'no task added for a forged id');
    assert.equal(h.log.lines.length, 20);
    assert.match(h.log.lines[0]!, /^ignored notifications\/tasks\/status for task "never\\r\\nissued x{66}…": no task sent to "demo" has that id$/);
    await advance(10_000, 1000);
    forged('guess-late');
    assert.match(h.log.lines[20]!, /^… 80 more like it in 10 s were not logged$/);
    assert.equal(h.log.lines.length, 22);
    // Pushes about its own task are not warned about.
    h.server.notify(h.id, { statusMessage: 'fine' });
    await flush();
    assert.equal(h.log.lines.length, 22);
    h.dispose();
  });
});
