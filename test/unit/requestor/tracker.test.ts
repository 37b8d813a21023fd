/**
 * The requestor tracker on fake time (node:test mock timers) against a scripted server
 * (`test/helpers/fakeTaskServer.ts`): the polling discipline around `tasks/result`, the
 * dead ends of a sent task (a network error, cancel, a server definition removed), and identity,
 * bounds and write throttling of persistence. Real-server counterparts are in test/integration/requestor.test.ts.
 */
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { definitionKey } from '../../../src/core/config/config.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { isActive, isCancellable, isFinished, taskContextValue, TaskView } from '../../../src/core/view/taskView.js';
import { Commands, ContextKeys } from '../../../src/ui/commands/commandIds.js';
import { TaskTracker, type SentTaskSnapshot, type TrackerOptions } from '../../../src/core/requestor/tracker.js';
import { readStoredTasks, type TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { terminalStatusIn } from '../../../src/core/requestor/trackerUtil.js';
import { orphanServerId } from '../../../src/core/requestor/sentRecord.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance, flush } from '../../helpers/fakeTime.js';
import { ROOT } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

class MemoryStorage implements TrackerStorage {
  data: unknown;
  readonly writesAt: number[] = [];
  load() {
    return this.data === undefined ? undefined : structuredClone(this.data);
  }
  save(data: unknown) {
    this.writesAt.push(Date.now());
    this.data = structuredClone(data);
  }
}

function tracker(server: FakeTaskServer, connections: ReturnType<FakeTaskServer['connection']>[], extra: Partial<TrackerOptions> = {}): TaskTracker {
  return new TaskTracker({
    connectionFor: (id) => connections.find((c) => c.id === id),
    minPollIntervalMs: 10,
    now: () => Date.now(),
    ...extra,
  });
}

const TOOL = { name: 'work', execution: { taskSupport: 'required' as const } };

function gaps(ts: number[]): number[] {
  return ts.slice(1).map((t, i) => t - ts[i]!);
}

/** One tool task sent to a fake server polled every 1000 ms. */
async function oneTask() {
  const server = new FakeTaskServer();
  server.pollInterval = 1000;
  const c = server.connection(definition('demo'));
  const t = tracker(server, [c]);
  const key = await t.callTool(c, TOOL, {});
  return { server, c, t, key, id: t.get(key)!.task!.taskId };
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

describe('a sent task\'s key', () => {
  test('is the one callTool answers, unchanged when the server names its task: the task id is a field, found through keyOfTask', async () => {
    const server = new FakeTaskServer();
    server.pollInterval = 1000;
    let release!: () => void;
    server.createGate = new Promise((r) => (release = r));
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const changes: Array<{ key: string; kind: string }> = [];
    const sub = t.onDidChange(({ key, kind }) => void changes.push({ key, kind }));
    const sending = t.callTool(c, TOOL, {});
    await flush();
    const before = t.snapshot()[0]!;
    assert.equal(before.phase, 'sending');
    assert.equal(before.task, undefined, 'not named yet');
    release();
    const key = await sending;
    assert.equal(key, before.key, 'callTool answers the key the task had before the server named it');
    const named = t.get(key)!;
    assert.equal(named.phase, 'tracking');
    const id = named.task!.taskId;
    assert.notEqual(key, `${c.id}/${id}`, 'the key is not made of the server\'s task id');
    assert.equal(t.keyOfTask(c.id, id), key);
    assert.deepEqual(new Set(changes.map((x) => x.key)), new Set([key]), 'every change names that one key');
    assert.ok(!changes.some((x) => x.kind === 'removed'), 'it never left the tracker to come back under another key');
    sub.dispose();
    t.dispose();
    server.dispose();
  });
});

describe('polling around tasks/result (R-GET-1, R-RESULT-2/4)', () => {
  test('after tasks/result returns for an input_required task, the next tasks/get waits out the pollInterval (no tasks/get ~55 ms later)', async () => {
    const { server, t, key, id } = await oneTask();
    server.set(id, 'input_required');
    await advance(1000); // 1st poll: input_required → tasks/result at once (R-RESULT-4)
    assert.equal(server.count('tasks/get'), 1);
    assert.equal(server.count('tasks/result'), 1);
    await advance(1500); // polling goes on while tasks/result is outstanding (R-GET-1): 2nd poll at 2000
    assert.equal(server.count('tasks/get'), 2);
    server.set(id, 'completed'); // tasks/result answers now, 500 ms after the last tasks/get
    await flush();
    const answeredAt = server.times('tasks/result answered')[0]!;
    assert.ok(t.get(key)!.outcome, 'the payload is there at once');
    await advance(495);
    assert.equal(server.count('tasks/get'), 2, 'no tasks/get within the pollInterval of the previous one, around tasks/result');
    await advance(505);
    const gets = server.times('tasks/get');
    assert.equal(gets.length, 3, 'the due poll brings the final status');
    assert.ok(gets[2]! - gets[1]! >= 1000, `gap ${gets[2]! - gets[1]!} ≥ pollInterval`);
    assert.equal(gets.filter((g) => g > answeredAt && g < gets[1]! + 1000).length, 0);
    const s = t.get(key)!;
    assert.equal(s.phase, 'done');
    assert.equal(s.task?.status, 'completed');
    assert.equal(s.resultFetches, 1);
    assert.equal(server.count('tasks/result'), 1);
    for (const g of gaps(gets)) assert.ok(g >= 1000, `every gap ≥ pollInterval (${gaps(gets).join(', ')})`);
    t.dispose();
  });

  test('a status notification after tasks/result finishes the task without any extra tasks/get (R-NOTIFY-2)', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const key = await t.callTool(c, TOOL, {});
    const id = t.get(key)!.task!.taskId;
    server.set(id, 'input_required');
    await advance(1000);
    await advance(300);
    server.set(id, 'completed');
    server.notify(id);
    await flush();
    assert.equal(t.get(key)!.phase, 'done');
    assert.equal(server.count('tasks/get'), 1);
    await advance(3000);
    assert.equal(server.count('tasks/get'), 1, 'nothing polled after the end');
    t.dispose();
  });
});

describe('change events from polls (R-GET-1)', () => {
  test('a tasks/get that says what the last one said is no change (no event, no redraw, no write); a new status message is one', async () => {
    const { server, t, key, id } = await oneTask();
    await advance(1000);
    const changes: string[] = [];
    const sub = t.onDidChange((e) => changes.push(`${e.kind}:${e.key === key ? 'ours' : e.key}`));
    const polls = server.count('tasks/get', id);
    await advance(1000);
    await advance(1000);
    await advance(1000);
    assert.ok(server.count('tasks/get', id) >= polls + 3, 'it kept polling');
    assert.deepEqual(changes, [], 'three polls with the same answer: no change');
    server.tasks.get(id)!.task = { ...server.tasks.get(id)!.task, statusMessage: 'halfway' };
    await advance(1000);
    assert.deepEqual(changes, ['updated:ours'], 'a new status message is one change');
    assert.equal(t.get(key)!.task!.statusMessage, 'halfway');
    server.set(id, 'completed');
    await advance(1000);
    await flush();
    assert.equal(t.get(key)!.phase, 'done');
    sub.dispose();
    t.dispose();
  });
});

describe('tasks/result after a network error', () => {
  test('is retried with backoff (0.5, 1, 2 s) until the payload arrives; no tasks/get meanwhile', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const key = await t.callTool(c, TOOL, {});
    const id = t.get(key)!.task!.taskId;
    server.set(id, 'completed');
    server.resultNetworkFailures = 3;
    await advance(1000);
    assert.equal(server.count('tasks/result'), 1);
    assert.match(t.get(key)!.reason ?? '', /tasks\/result failed \(fetch failed\); trying again/);
    await advance(5000);
    const attempts = server.times('tasks/result');
    assert.equal(attempts.length, 4);
    assert.deepEqual(gaps(attempts), [500, 1000, 2000]);
    const s = t.get(key)!;
    assert.equal(s.phase, 'done');
    assert.equal(s.outcome?.kind, 'result');
    assert.equal(s.reason, undefined, 'the transient note is gone');
    assert.equal(s.resultFetches, 1);
    assert.equal(server.count('tasks/get'), 1);
    t.dispose();
  });

  test('after maxResultAttempts it rests as done without payload, and retrieve() (Retrieve Result) fetches it', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c], { maxResultAttempts: 3 });
    const key = await t.callTool(c, TOOL, {});
    server.set(t.get(key)!.task!.taskId, 'completed');
    server.resultNetworkFailures = 10;
    await advance(1000 + 500 + 1000 + 100);
    let s = t.get(key)!;
    assert.equal(server.count('tasks/result'), 3);
    assert.equal(s.phase, 'done');
    assert.equal(s.outcome, undefined);
    assert.match(s.reason ?? '', /Retrieve Result tries again/);
    await advance(60_000);
    assert.equal(server.count('tasks/result'), 3, 'it stopped asking');

    server.resultNetworkFailures = 0;
    s = await t.retrieve(key);
    assert.equal(s.outcome?.kind, 'result');
    assert.equal(s.phase, 'done');
    assert.equal(s.reason, undefined);
    assert.equal(server.count('tasks/result'), 4);
    t.dispose();
  });
});

describe('cancel (R-CANCEL-1/2)', () => {
  test('pressed before the CreateTaskResult: tasks/cancel goes out as soon as the task id is known, and cancel() tells the truth', async () => {
    const server = new FakeTaskServer();
    let release!: () => void;
    server.createGate = new Promise((r) => (release = r));
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const keyP = t.callTool(c, TOOL, {});
    await flush();
    const sending = t.snapshot()[0]!;
    assert.equal(sending.phase, 'sending');
    let settled: SentTaskSnapshot | undefined;
    const cancelP = t.cancel(sending.key).then((s) => (settled = s));
    await flush();
    assert.equal(settled, undefined, 'cancel() waits for the task id');
    assert.equal(t.get(sending.key)!.cancelRequested, true);
    assert.match(t.get(sending.key)!.reason ?? '', /Cancel requested/);
    assert.doesNotMatch(t.get(sending.key)!.reason ?? '', /already|finished/i);
    release();
    const key = await keyP;
    await cancelP;
    assert.equal(settled!.task?.status, 'cancelled');
    assert.equal(settled!.phase, 'done');
    assert.equal(settled!.key, key);
    assert.ok(!/already finished/i.test(settled!.reason ?? ''), settled!.reason);
    assert.deepEqual(
      server.log.map((l) => l.method),
      ['tools/call', 'tasks/cancel'],
      'the cancel went out at once, before any poll',
    );
    await advance(5000);
    assert.equal(server.count('tasks/get'), 0);
    t.dispose();
  });

  test('pressed twice before the CreateTaskResult: the request is abandoned, and the reason says the task may still run', async () => {
    const server = new FakeTaskServer();
    server.createGate = new Promise(() => undefined); // never answers
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const keyP = t.callTool(c, TOOL, {});
    await flush();
    const key = t.snapshot()[0]!.key;
    const first = t.cancel(key);
    await flush();
    const second = await t.cancel(key);
    assert.equal(await keyP, key, 'never re-keyed');
    assert.equal((await first).phase, 'error');
    assert.equal(second.phase, 'error');
    assert.match(second.reason ?? '', /abandoned.*may still run/);
    assert.equal(second.cancelRequested, undefined);
    assert.equal(t.activeCount, 0);
    t.dispose();
  });

  test('a -32602 answer naming a terminal status: no extra tasks/get; the status is taken and the result fetched', async () => {
    const server = new FakeTaskServer();
    server.pollInterval = 60_000;
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const key = await t.callTool(c, TOOL, {});
    server.set(t.get(key)!.task!.taskId, 'completed');
    const s = await t.cancel(key);
    assert.match(s.reason ?? '', /could not cancel.*terminal status: completed/);
    await flush();
    const done = t.get(key)!;
    assert.equal(done.phase, 'done');
    assert.equal(done.task?.status, 'completed');
    assert.equal(done.outcome?.kind, 'result');
    assert.equal(server.count('tasks/get'), 0, 'no tasks/get after the -32602');
    assert.equal(server.count('tasks/result'), 1);
    t.dispose();
  });

  test('a -32602 answer naming no status (unknown task): no extra tasks/get; the due poll finds it expired', async () => {
    const server = new FakeTaskServer();
    server.pollInterval = 2000;
    server.cancelMode = 'unknown';
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const key = await t.callTool(c, TOOL, {});
    await advance(1000);
    const s = await t.cancel(key);
    assert.match(s.reason ?? '', /could not cancel.*not found/i);
    assert.equal(s.phase, 'tracking');
    await advance(995);
    assert.equal(server.count('tasks/get'), 0, 'the poll waits for its time');
    await advance(10);
    assert.equal(server.count('tasks/get'), 1);
    t.dispose();
  });

  test('while the server is disconnected: no throw; the cancel is sent when it is back', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const key = await t.callTool(c, TOOL, {});
    c.setState({ kind: 'stopped' });
    t.onServerStopped(c.id, '"demo" is stopped');
    const s = await t.cancel(key);
    assert.equal(s.phase, 'paused');
    assert.equal(s.cancelRequested, true);
    assert.match(s.reason ?? '', /goes out when "demo" is connected again/);
    c.setState({ kind: 'running', capabilities: {} });
    await t.onServerRunning(c);
    await flush();
    assert.equal(t.get(key)!.task?.status, 'cancelled');
    assert.equal(t.get(key)!.phase, 'done');
    assert.equal(server.count('tasks/cancel'), 1);
    t.dispose();
  });

  test('terminalStatusIn reads both the spec and the SDK wording of R-CANCEL-1', () => {
    assert.equal(terminalStatusIn("Cannot cancel task: already in terminal status 'failed'"), 'failed');
    assert.equal(terminalStatusIn('MCP error -32602: Cannot cancel task in terminal status: completed'), 'completed');
    assert.equal(terminalStatusIn('Task not found: abc'), undefined);
  });
});

describe('server definitions: identity and orphans', () => {
  test('tasks of a definition removed from the configuration are orphaned: not polled, Cancel explains without throwing, Dismiss forgets them; configured again, they resume', async () => {
    const server = new FakeTaskServer();
    const def = definition('demo', '/w/.vscode/mcp.json', 'demo', 'workspace');
    const c = server.connection(def);
    const connections = [c];
    const t = tracker(server, connections);
    const a = await t.callTool(c, TOOL, {});
    const b = await t.callTool(c, TOOL, {});
    t.setConfiguredServers([]);
    connections.length = 0;
    const orphans = t.snapshot();
    assert.deepEqual(orphans.map((s) => s.phase), ['orphaned', 'orphaned']);
    for (const s of orphans) {
      assert.equal(s.serverId, orphanServerId({ definitionKey: definitionKey(def), serverId: 'demo' }), 'shown under their own "not configured" server');
      assert.ok(!s.serverId.includes('/'), 'no server id contains the "/" of task keys');
      assert.match(s.reason ?? '', /no longer configured/);
    }
    assert.deepEqual(orphans.map((s) => s.key).sort(), [a, b].sort(), 'their keys stay: only the server id they show under moved');
    const idOfA = t.get(a)!.task!.taskId;
    await advance(5000);
    assert.equal(server.count('tasks/get'), 0, 'orphans are not polled');

    const snap = await t.cancel(a); // today: TypeError (connectionFor(...)!.client)
    assert.match(snap.reason ?? '', /no longer configured.*Dismiss/);
    assert.equal(server.count('tasks/cancel'), 0);
    t.remove(a); // Dismiss
    assert.equal(t.get(a), undefined);

    t.setConfiguredServers([def]);
    connections.push(c);
    assert.equal(t.get(b)?.phase, 'paused', 'back under its server id');
    assert.equal(t.get(b)?.serverId, 'demo');
    await t.onServerRunning(c);
    assert.equal(t.get(b)?.phase, 'tracking');
    // The dismissed one was forgotten here; the server still has it, so tasks/list (R-LIST-1) shows it as a task from elsewhere.
    const listed = t.keyOfTask('demo', idOfA)!;
    assert.notEqual(listed, a, 'a new task of this window, under a key of its own');
    assert.equal(t.get(listed)?.origin, 'listed');
    assert.equal(t.get(listed)?.toolName, '(task from elsewhere)');
    t.dispose();
  });

  test('two definitions with one name (user and workspace) never share tasks: persisted, resumed and listed per definition', async () => {
    const storage = new MemoryStorage();
    const serverA = new FakeTaskServer();
    const defA = definition('demo', 'user settings');
    const defB = definition('demo', '/w/.vscode/mcp.json', 'demo', 'workspace');
    const cA = serverA.connection(defA);
    const t1 = tracker(serverA, [cA], { storage });
    const keyA = await t1.callTool(cA, TOOL, {});
    t1.dispose();

    // Next session: only the workspace's "demo" is configured (same name, same id).
    const serverB = new FakeTaskServer();
    const cB = serverB.connection(defB);
    const t2 = tracker(serverB, [cB], { storage });
    assert.equal(t2.get(keyA)?.definitionKey, definitionKey(defA));
    await t2.onServerRunning(cB);
    assert.equal(serverB.count('tasks/get'), 0, "the user server's task is never polled on the workspace server");
    const moved = t2.snapshot().find((s) => s.definitionKey === definitionKey(defA))!;
    assert.notEqual(moved.serverId, cB.id, 'no longer shown under the other definition');
    assert.equal(moved.phase, 'paused');
    // B's own task with the same task id gets its own record.
    const keyB = await t2.callTool(cB, TOOL, {});
    assert.equal(t2.get(keyB)?.task?.taskId, t2.get(keyA)?.task?.taskId, 'same id on the wire…');
    assert.equal(t2.snapshot().length, 2, '…two records');
    assert.equal(t2.get(keyB)?.definitionKey, definitionKey(defB));
    t2.setConfiguredServers([defB]);
    assert.equal(t2.get(moved.key)?.phase, 'orphaned');
    t2.dispose();
  });

  test('a definition whose id changes (a second folder defines the same name) keeps its tasks', async () => {
    const server = new FakeTaskServer();
    const def = definition('demo', '/a/.vscode/mcp.json', 'demo', 'workspace');
    const c = server.connection(def);
    const t = tracker(server, [c]);
    const key = await t.callTool(c, TOOL, {});
    const renamed = { ...def, id: 'a/demo' };
    t.setConfiguredServers([renamed, definition('demo', '/b/.vscode/mcp.json', 'b/demo', 'workspace')]);
    const s = t.get(key)!;
    assert.equal(s.serverId, 'a/demo', 'shown under the new id, under the key it had');
    assert.equal(s.phase, 'paused', 'waits for the connection under the new id');
    assert.match(s.reason ?? '', /definition of "demo" changed/);
    const c2 = server.connection(renamed);
    await t.onServerRunning(c2);
    assert.equal(t.get(s.key)?.phase, 'tracking');
    t.dispose();
  });
});

describe('persistence', () => {
  test('version 1 data (keyed by server id) is adopted by the definition holding that id; unreadable records and storage are dropped, never thrown', async () => {
    const task = { taskId: 'x1', status: 'working', createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString(), ttl: null };
    const v1 = {
      version: 1,
      tasks: [
        { key: 'demo/x1', serverId: 'demo', serverName: 'demo', toolName: 'work', argsSummary: '{}', mode: 'task', origin: 'local', sentAt: 1, phase: 'tracking', task, polls: 3, resultFetches: 0 },
        { key: 'broken', serverId: 42 },
      ],
    };
    const storage = new MemoryStorage();
    storage.data = v1;
    const server = new FakeTaskServer();
    const def = definition('demo');
    const t = tracker(server, [], { storage });
    assert.equal(t.snapshot().length, 1, 'the good record is kept, the broken one dropped');
    assert.equal(t.get('demo/x1')?.phase, 'paused');
    t.setConfiguredServers([def]);
    assert.equal(t.get('demo/x1')?.definitionKey, definitionKey(def));
    await t.flush();
    assert.equal(typeof storage.data, 'string', 'written back as version 3: one JSON string');
    assert.equal((JSON.parse(storage.data as string) as { version: number }).version, 3);
    assert.equal(readStoredTasks(storage.data).tasks[0]?.definitionKey, definitionKey(def));
    t.dispose();

    for (const garbage of [42, 'x', { version: 9, tasks: [] }, { version: 1, tasks: 'no' }]) {
      const s = new MemoryStorage();
      s.data = garbage;
      const g = tracker(server, [], { storage: s });
      assert.equal(g.snapshot().length, 0);
      g.dispose();
    }
    const throwing = tracker(server, [], {
      storage: {
        load: () => {
          throw new Error('disk on fire');
        },
        save: () => undefined,
      },
    });
    assert.equal(throwing.snapshot().length, 0);
    throwing.dispose();
  });

  test('bounded by maxStoredTasks: the oldest finished tasks go first, running ones never', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const storage = new MemoryStorage();
    const t = tracker(server, [c], { storage, maxStoredTasks: () => 4 });
    const finished: string[] = [];
    for (let i = 0; i < 5; i++) {
      const k = await t.callTool(c, TOOL, {});
      server.set(t.get(k)!.task!.taskId, 'cancelled');
      await advance(1000);
      assert.equal(t.get(k)?.phase, 'done');
      finished.push(k);
    }
    const running = [await t.callTool(c, TOOL, {}), await t.callTool(c, TOOL, {})];
    await flush();
    const keys = t.snapshot().map((s) => s.key);
    assert.equal(keys.length, 4);
    for (const k of running) assert.ok(keys.includes(k), `running ${k} kept`);
    assert.deepEqual(keys.filter((k) => finished.includes(k)).sort(), finished.slice(3).sort(), 'the two newest finished ones kept');
    await t.flush();
    assert.equal(readStoredTasks(storage.data).tasks.length, 4, 'storage holds the same bounded set');
    t.dispose();
  });

  test('saved at most once a second, and only when something changed (not on every poll)', async () => {
    const server = new FakeTaskServer();
    server.pollInterval = 100;
    const c = server.connection(definition('demo'));
    const storage = new MemoryStorage();
    const t = tracker(server, [c], { storage });
    const key = await t.callTool(c, TOOL, {});
    const id = t.get(key)!.task!.taskId;
    await advance(10_000);
    assert.ok(server.count('tasks/get') >= 90, `polled ~100 times (${server.count('tasks/get')})`);
    assert.ok(storage.writesAt.length <= 2, `unchanged polls cost no writes (${storage.writesAt.length})`);

    const before = storage.writesAt.length;
    for (let i = 0; i < 100; i++) {
      server.notify(id, { statusMessage: `step ${i}` }); // a real change every 50 ms
      await advance(50);
    }
    const writes = storage.writesAt.slice(before);
    assert.ok(writes.length >= 4 && writes.length <= 6, `5 s of changes → about one write a second (${writes.length})`);
    for (const g of gaps(storage.writesAt)) assert.ok(g >= 1000, `writes ≥ 1 s apart (${gaps(storage.writesAt).join(', ')})`);
    const last = readStoredTasks(storage.data).tasks[0]!;
    assert.match(last.task?.statusMessage ?? '', /^step \d+$/);
    t.dispose();
  });

  test('a result too large to store is left out (marked) and fetched again on Retrieve', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const storage = new MemoryStorage();
    const t1 = tracker(server, [c], { storage });
    const key = await t1.callTool(c, TOOL, {});
    server.set(t1.get(key)!.task!.taskId, 'completed', { content: [{ type: 'text', text: 'x'.repeat(300_000) }] });
    await advance(1000);
    assert.equal(t1.get(key)?.outcome?.kind, 'result');
    t1.dispose();
    assert.ok(JSON.stringify(storage.data).length < 10_000, 'the big payload is not stored');

    const t2 = tracker(server, [c], { storage });
    assert.equal(t2.get(key)?.outcome, undefined);
    await t2.onServerRunning(c);
    assert.equal(server.count('tasks/result'), 1, 'not fetched again by itself');
    const s = await t2.retrieve(key);
    assert.equal(s.outcome?.kind, 'result');
    assert.equal(server.count('tasks/result'), 2);
    t2.dispose();
  });
});

describe('orphaned tasks in the view and its menus', () => {
  interface MenuItem {
    command: string;
    when?: string;
    group?: string;
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    contributes: { commands: Array<{ command: string }>; menus: Record<string, MenuItem[]> };
  };
  /** Whether a `view/item/context` entry shows on a row with this contextValue (`viewItem =~ /…/` or `==`). */
  const shows = (m: MenuItem, contextValue: string): boolean => {
    const re = /viewItem =~ \/(.+?)\/(?: |$)/.exec(m.when ?? '');
    if (re) return new RegExp(re[1]!).test(contextValue);
    const eq = /viewItem == (\S+)/.exec(m.when ?? '');
    return eq ? eq[1] === contextValue : false;
  };

  test('an orphaned task is neither cancellable nor finished nor active; its row offers Dismiss (inline and in the context menu) and nothing that needs its server', async () => {
    const server = new FakeTaskServer();
    const c = server.connection(definition('demo'));
    const t = tracker(server, [c]);
    const ledger = new TaskLedger();
    const view = new TaskView(ledger, t, { coalesceMs: 0 });
    const key = await t.callTool(c, TOOL, {});
    t.setConfiguredServers([]);
    const item = view.items().find((i) => i.direction === 'sent')!;
    assert.equal(item.state, 'orphaned');
    assert.equal(item.id, `sent:${key}`, 'the same row: its key stays');
    assert.notEqual(item.serverId, 'demo', 'moved out from under the server id');
    assert.equal(isCancellable(item.state), false);
    assert.equal(isFinished(item.state), false);
    assert.equal(isActive(item.state), false);
    assert.equal(view.counts().byState.orphaned, 1);
    assert.equal(view.counts().active, 0);
    const cv = taskContextValue(item);
    assert.match(cv, /\bdismissable\b/);

    const menu = pkg.contributes.menus['view/item/context']!;
    const offered = menu.filter((m) => shows(m, cv));
    assert.deepEqual([...new Set(offered.map((m) => m.command))].sort(), [Commands.copyTaskId, Commands.dismissTask].sort());
    assert.deepEqual(offered.filter((m) => m.command === Commands.dismissTask).map((m) => m.group?.split('@')[0]).sort(), ['1_task', 'inline']);
    assert.ok(pkg.contributes.commands.some((x) => x.command === Commands.dismissTask), 'contributed');
    const palette = pkg.contributes.menus.commandPalette!.find((m) => m.command === Commands.dismissTask);
    assert.equal(palette?.when, ContextKeys.hasOrphaned);
    view.dispose();
    ledger.dispose();
    t.dispose();
  });

  test('every command id is contributed in package.json', () => {
    const contributed = new Set(pkg.contributes.commands.map((x) => x.command));
    for (const id of Object.values(Commands)) assert.ok(contributed.has(id), id);
  });
});
