/**
 * The send queue (src/core/requestor/sendQueue.ts): a per-server limit on calls in flight, calls
 * beyond it `queued` and started in priority order (urgent first, FIFO within a priority), a
 * queued call cancelled without reaching the server; on fake time against the scripted server.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { SendQueue, type TaskPriority } from '../../../src/core/requestor/sendQueue.js';
import type { SentTask } from '../../../src/core/requestor/sentTask.js';
import { TaskTracker, type TrackerOptions } from '../../../src/core/requestor/tracker.js';
import { readStoredTasks, type TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { taskContextValue, TaskView } from '../../../src/core/view/taskView.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance, flush } from '../../helpers/fakeTime.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

const tool = (name: string) => ({ name, execution: { taskSupport: 'required' as const } });

function setup(limit: () => number, extra: Partial<TrackerOptions> = {}) {
  const server = new FakeTaskServer();
  const c = server.connection(definition('demo'));
  const t = new TaskTracker({ connectionFor: (id) => (id === c.id ? c : undefined), minPollIntervalMs: 10, now: () => Date.now(), maxConcurrentPerServer: limit, ...extra });
  return { server, c, t };
}

/** The tracker snapshot of the call to `toolName`. */
function byTool(t: TaskTracker, toolName: string) {
  return t.snapshot().find((s) => s.toolName === toolName)!;
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

describe('SendQueue ordering', () => {
  test('urgent, high, normal, low; first in first out within a priority; per server', () => {
    const q = new SendQueue();
    const sent = (key: string, serverId = 'a') => ({ key, record: { key, serverId } }) as unknown as SentTask;
    const order: Array<[string, TaskPriority]> = [
      ['low1', 'low'],
      ['normal1', 'normal'],
      ['urgent1', 'urgent'],
      ['high1', 'high'],
      ['urgent2', 'urgent'],
      ['normal2', 'normal'],
    ];
    for (const [key, priority] of order) q.add({ sent: sent(key), tool: tool(key), args: {}, priority });
    q.add({ sent: sent('other', 'b'), tool: tool('other'), args: {}, priority: 'urgent' });
    assert.deepEqual(
      q.waitingFor('a').map((i) => i.sent.key),
      ['urgent1', 'urgent2', 'high1', 'normal1', 'normal2', 'low1'],
    );
    assert.equal(q.shift('a')?.sent.key, 'urgent1');
    const high = q.waitingFor('a')[1]!.sent;
    assert.equal(q.find(high)?.priority, 'high');
    assert.equal(q.remove(high)?.sent.key, 'high1');
    assert.equal(q.remove(high), undefined, 'removed once');
    assert.deepEqual(
      q.waitingFor('a').map((i) => i.sent.key),
      ['urgent2', 'normal1', 'normal2', 'low1'],
    );
    assert.deepEqual([...q.servers()].sort(), ['a', 'b']);
  });
});

describe('per-server limit (mcpTasks.requestor.maxConcurrentTasksPerServer)', () => {
  test('calls beyond the limit wait queued and start by priority (urgent first, FIFO within one) as slots free', async () => {
    const { server, c, t } = setup(() => 1);
    await t.callTool(c, tool('first'), {});
    assert.equal(byTool(t, 'first').phase, 'tracking');
    for (const [name, priority] of [
      ['low', 'low'],
      ['normal-a', 'normal'],
      ['urgent', 'urgent'],
      ['normal-b', 'normal'],
      ['high', 'high'],
    ] as const) {
      const key = await t.callTool(c, tool(name), {}, { priority });
      assert.equal(t.get(key)?.phase, 'queued', `${name} waits`);
    }
    assert.equal(server.count('tools/call'), 1, 'nothing queued reached the server');
    const started: string[] = [];
    for (const expected of ['urgent', 'high', 'normal-a', 'normal-b', 'low']) {
      const running = t.snapshot().find((s) => s.phase === 'tracking')!;
      server.set(running.task!.taskId, 'completed');
      await advance(1000);
      await flush();
      assert.equal(t.get(running.key)?.phase, 'done');
      const now = t.snapshot().filter((s) => s.phase === 'tracking' || s.phase === 'sending');
      assert.equal(now.length, 1, 'never more than the limit in flight');
      started.push(now[0]!.toolName);
      assert.equal(now[0]!.toolName, expected);
    }
    assert.deepEqual(started, ['urgent', 'high', 'normal-a', 'normal-b', 'low']);
    assert.equal(server.count('tools/call'), 6);
    t.dispose();
  });

  test('a queued call cancelled never reaches the server; the view shows it queued (own icon state) then cancelled', async () => {
    const { server, c, t } = setup(() => 1);
    const ledger = new TaskLedger();
    const view = new TaskView(ledger, t, { coalesceMs: 0 });
    await t.callTool(c, tool('first'), {});
    const key = await t.callTool(c, tool('waiting'), {}, { priority: 'high' });
    const item = () => view.item(`sent:${key}`)!;
    assert.equal(item().state, 'queued');
    assert.equal(taskContextValue(item()), 'mcpTask sent queued cancellable');
    assert.throws(() => t.remove(key), /still running/);
    const s = await t.cancel(key);
    assert.equal(s.phase, 'done');
    assert.equal(s.cancelledInQueue, true);
    assert.match(s.reason ?? '', /never reached the server/);
    assert.equal(item().state, 'cancelled');
    // The running one finishes: nothing else starts.
    server.set(byTool(t, 'first').task!.taskId, 'completed');
    await advance(1000);
    assert.equal(server.count('tools/call'), 1, 'the cancelled call was never sent');
    t.remove(key);
    assert.equal(t.get(key), undefined);
    view.dispose();
    ledger.dispose();
    t.dispose();
  });

  test('no limit (0) sends everything at once; raising the limit starts waiting calls', async () => {
    let limit = 0;
    const { server, c, t } = setup(() => limit);
    for (let i = 0; i < 3; i++) await t.callTool(c, tool(`n${i}`), {});
    assert.equal(server.count('tools/call'), 3);
    limit = 3;
    const key = await t.callTool(c, tool('fourth'), {});
    assert.equal(t.get(key)?.phase, 'queued');
    limit = 4;
    t.startQueued();
    await flush();
    assert.equal(server.count('tools/call'), 4);
    assert.equal(byTool(t, 'fourth').phase, 'tracking');
    t.dispose();
  });

  test('queued calls wait while the server is away and start when it runs again; they are never stored', async () => {
    const storage: TrackerStorage & { data?: unknown } = {
      load: () => undefined,
      save(d) {
        this.data = structuredClone(d);
      },
    };
    const { server, c, t } = setup(() => 1, { storage, saveIntervalMs: 10 });
    await t.callTool(c, tool('first'), {});
    await t.callTool(c, tool('second'), {});
    c.setState({ kind: 'stopped' });
    t.onServerStopped(c.id, 'stopped');
    await advance(50);
    assert.equal(byTool(t, 'second').phase, 'queued');
    assert.match(byTool(t, 'second').reason ?? '', /waiting for "demo" to run/);
    const stored = readStoredTasks(storage.data).tasks.map((x) => x.toolName);
    assert.deepEqual(stored, ['first'], 'queued calls live in memory only (their arguments are not stored)');
    c.setState({ kind: 'running', capabilities: {} });
    await t.onServerRunning(c);
    server.set(byTool(t, 'first').task!.taskId, 'completed');
    await advance(1000);
    assert.equal(byTool(t, 'second').phase, 'tracking');
    t.dispose();
  });

  test('an aborted signal takes a queued call out of the queue', async () => {
    const { server, c, t } = setup(() => 1);
    await t.callTool(c, tool('first'), {});
    const ac = new AbortController();
    const key = await t.callTool(c, tool('second'), {}, { signal: ac.signal });
    ac.abort(new Error('caller gave up'));
    assert.equal(t.get(key)?.cancelledInQueue, true);
    server.set(byTool(t, 'first').task!.taskId, 'completed');
    await advance(1000);
    assert.equal(server.count('tools/call'), 1);
    t.dispose();
  });

  test('one long-lived signal given to many calls, sent at once or queued: nothing is left on it once they end', async () => {
    const { server, c, t } = setup(() => 2);
    const caller = new AbortController();
    const listeners = () => getEventListeners(caller.signal, 'abort').length;
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) keys.push(await t.callTool(c, tool(`call ${i}`), {}, { signal: caller.signal }));
    assert.deepEqual(keys.map((k) => t.get(k)?.phase), ['tracking', 'tracking', 'queued', 'queued', 'queued']);
    assert.equal(listeners(), 5, 'each call, tracked or waiting, answers to the caller\'s signal');
    for (let round = 0; round < 3; round++) {
      for (const k of keys) {
        const task = t.get(k)?.task;
        if (task && t.get(k)?.phase === 'tracking') server.set(task.taskId, 'completed');
      }
      await advance(1000);
    }
    assert.deepEqual(keys.map((k) => t.get(k)?.phase), ['done', 'done', 'done', 'done', 'done']);
    assert.equal(server.count('tools/call'), 5);
    assert.equal(listeners(), 0, 'finished calls leave no listener on the caller\'s signal');
    caller.abort(new Error('long after'));
    assert.deepEqual(keys.map((k) => t.get(k)?.outcome?.kind), ['result', 'result', 'result', 'result', 'result'], 'an abort after the calls ended changes none of them');
    t.dispose();
  });

  test('disposing the tracker lets go of the signals of the calls still queued', async () => {
    const { c, t } = setup(() => 1);
    const caller = new AbortController();
    await t.callTool(c, tool('first'), {}, { signal: caller.signal });
    await t.callTool(c, tool('second'), {}, { signal: caller.signal });
    assert.equal(byTool(t, 'second').phase, 'queued');
    assert.equal(getEventListeners(caller.signal, 'abort').length, 2);
    t.dispose();
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
  });
});
