/**
 * One sent task whose result nests thousands of levels deep (a hostile server's 10–20 KB
 * structuredContent) must not break the snapshot of all tasks: the tree, the status bar, the API's
 * listTasks/watchTasks and the chat tools all read `tracker.snapshot()` / `TaskView.items()`.
 */
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { TaskTracker, type TrackerStorage } from '../../../src/core/requestor/tracker.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance } from '../../helpers/fakeTime.js';
import { nestedValue } from '../../helpers/deepJson.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

const TOOL = { name: 'work', execution: { taskSupport: 'required' as const } };

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

describe('a result nested thousands of levels deep', () => {
  test('that reached a task anyway: tracker.snapshot(), get() and TaskView.items() still answer, for that task (without its result, saying why) and every other', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const t = new TaskTracker({ connectionFor: () => c, minPollIntervalMs: 10, now: () => Date.now() });
    const ledger = new TaskLedger();
    const view = new TaskView(ledger, t);
    try {
      const good = await t.callTool(c, TOOL, {});
      const bad = await t.callTool(c, TOOL, {});
      server.set(t.get(good)!.task!.taskId, 'completed');
      server.set(t.get(bad)!.task!.taskId, 'completed', { content: [], structuredContent: nestedValue(6000) as Record<string, unknown> });
      await advance(1000);
      assert.equal(t.get(bad)?.phase, 'done');
      const all = t.snapshot();
      assert.equal(all.length, 2);
      assert.equal(all.find((s) => s.key === good)?.outcome?.kind, 'result', 'the other task keeps its result');
      const badSnap = all.find((s) => s.key === bad)!;
      assert.equal(badSnap.outcome, undefined);
      assert.match(badSnap.reason ?? '', /cannot be shown/);
      const items = view.items();
      assert.equal(items.length, 2);
      assert.equal(items.find((i) => i.id === `sent:${good}`)?.state, 'completed');
    } finally {
      view.dispose();
      t.dispose();
      ledger.dispose();
    }
  });

  test('stored by an earlier version: loaded without it (Retrieve Result asks again), and the snapshot answers', () => {
    const deep = { kind: 'result', result: { content: [], structuredContent: nestedValue(6000) } };
    const stored = {
      version: 3,
      tasks: [
        { key: 'demo/t1', serverId: 'demo', serverName: 'demo', toolName: 'work', argsSummary: '', mode: 'task', origin: 'local', sentAt: 1, phase: 'done', polls: 0, resultFetches: 1, outcome: deep, task: { taskId: 't1', status: 'completed', createdAt: '2025-01-01T00:00:00Z', lastUpdatedAt: '2025-01-01T00:00:00Z', ttl: null } },
        { key: 'demo/t2', serverId: 'demo', serverName: 'demo', toolName: 'work', argsSummary: '', mode: 'task', origin: 'local', sentAt: 2, phase: 'done', polls: 0, resultFetches: 1, outcome: { kind: 'result', result: { content: [] } }, task: { taskId: 't2', status: 'completed', createdAt: '2025-01-01T00:00:00Z', lastUpdatedAt: '2025-01-01T00:00:00Z', ttl: null } },
      ],
    };
    const storage: TrackerStorage = { load: () => stored, save: () => undefined };
    const t = new TaskTracker({ connectionFor: () => undefined, storage, now: () => Date.now() });
    try {
      const all = t.snapshot();
      assert.equal(all.length, 2);
      assert.equal(all.find((s) => s.key === 'demo/t1')?.outcome, undefined);
      assert.equal(all.find((s) => s.key === 'demo/t2')?.outcome?.kind, 'result');
    } finally {
      t.dispose();
    }
  });
});
