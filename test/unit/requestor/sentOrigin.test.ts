/**
 * A sent task is asked about only at the origin it was sent to (requestor/sentOrigin.ts), on fake
 * time against the scripted server: a connection of the same name that now reaches another URL or
 * command line is never polled, fetched or cancelled for it — after a restart the tracker heard
 * of, after one it did not hear of (checked before each request), and for a task stored before
 * origins were kept. Real servers over HTTP and stdio: test/integration/requestor/sentOrigin.test.ts.
 */
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TransportDefinition } from '../../../src/core/config/config.js';
import { originOf } from '../../../src/core/connection/serverOrigin.js';
import { TaskTracker, type TrackerStorage } from '../../../src/core/requestor/tracker.js';
import { readStoredTasks } from '../../../src/core/requestor/trackerStore.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance } from '../../helpers/fakeTime.js';
import { checkLeaks } from '../../helpers/leaks.js';

checkLeaks();

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

const TOOL = { name: 'work', execution: { taskSupport: 'required' as const } };
const A: TransportDefinition = { type: 'http', url: 'https://a.example/mcp', headers: {} };
const B: TransportDefinition = { type: 'http', url: 'https://b.example/mcp', headers: {} };

class MemoryStorage implements TrackerStorage {
  data: unknown;
  load() {
    return this.data === undefined ? undefined : structuredClone(this.data);
  }
  save(data: unknown) {
    this.data = structuredClone(data);
  }
}

function setup(storage?: TrackerStorage) {
  const server = new FakeTaskServer();
  server.pollInterval = 50;
  const def = { ...definition('demo'), transport: A };
  const c = server.connection(def);
  const t = new TaskTracker({ connectionFor: (id) => (id === c.id ? c : undefined), minPollIntervalMs: 10, now: () => Date.now(), ...(storage ? { storage } : {}) });
  return { server, c, t };
}

describe('origin of a resolved transport', () => {
  test('http: the whole URL decides, the label drops credentials and query; stdio: command line, folder and non-secret env decide, a rotated token does not', () => {
    const a = originOf({ type: 'http', url: 'https://user:pw@a.example/mcp?tenant=1', headers: {} });
    assert.equal(a.label, 'https://a.example/mcp');
    assert.notEqual(a.id, originOf({ type: 'http', url: 'https://user:pw@a.example/mcp?tenant=2', headers: {} }).id);
    assert.notEqual(originOf(A).id, originOf(B).id);
    const stdio = (over: Partial<Extract<TransportDefinition, { type: 'stdio' }>> = {}): TransportDefinition => ({ type: 'stdio', command: 'npx', args: ['mcp-remote', 'https://a.example/mcp'], env: { API_URL: 'https://a', GITHUB_TOKEN: 't1' }, cwd: '/w', ...over });
    const base = originOf(stdio());
    assert.equal(base.label, 'npx mcp-remote https://a.example/mcp (in /w)');
    assert.equal(originOf(stdio({ env: { API_URL: 'https://a', GITHUB_TOKEN: 't2' } })).id, base.id, 'a rotated token is the same server');
    assert.notEqual(originOf(stdio({ env: { API_URL: 'https://b', GITHUB_TOKEN: 't1' } })).id, base.id, 'an env that steers it elsewhere is not');
    assert.notEqual(originOf(stdio({ args: ['mcp-remote', 'https://b.example/mcp'] })).id, base.id);
    assert.notEqual(originOf(stdio({ cwd: '/other' })).id, base.id);
    assert.ok(originOf({ type: 'http', url: `https://a.example/${'x'.repeat(5000)}`, headers: {} }).label.length <= 200, 'bounded');
  });
});

describe('a task is asked about only where it was sent', () => {
  test('resumed after a restart at another URL: held with a typed reason, never polled or fetched there; back at its URL, it resumes and completes', async () => {
    const { server, c, t } = setup();
    const key = await t.callTool(c, TOOL, {});
    const id = t.get(key)!.task!.taskId;
    assert.equal(t.get(key)!.sentTo, 'https://a.example/mcp');
    await advance(60);
    const getsAtA = server.count('tasks/get', id);
    assert.ok(getsAtA >= 1);

    // The definition now resolves elsewhere (an ${env:…} with another value): the same fake answers as B would.
    c.setState({ kind: 'stopped' });
    t.onServerStopped(c.id, '"demo" was stopped');
    c.setTransport(B);
    server.set(id, 'completed', { content: [{ type: 'text', text: 'forged by B' }] });
    c.setState({ kind: 'running', capabilities: {} });
    await t.onServerRunning(c);
    await advance(500);
    let s = t.get(key)!;
    assert.equal(server.count('tasks/get', id), getsAtA, 'not polled at B');
    assert.equal(server.count('tasks/result', id), 0, 'not fetched at B');
    assert.equal(s.phase, 'paused');
    assert.equal(s.outcome, undefined);
    assert.deepEqual(s.originHold, { kind: 'origin-changed', sentTo: 'https://a.example/mcp', now: 'https://b.example/mcp' });
    assert.match(s.reason ?? '', /^Sent to https:\/\/a\.example\/mcp; "demo" now points at https:\/\/b\.example\/mcp\./);

    // Cancel while held: it waits for A, nothing goes to B.
    s = await t.cancel(key);
    assert.equal(server.count('tasks/cancel', id), 0);
    assert.match(s.reason ?? '', /goes out when "demo" points at https:\/\/a\.example\/mcp again/);

    // Back at A: resumed there (the cancel goes out first, to A).
    c.setState({ kind: 'stopped' });
    t.onServerStopped(c.id, '"demo" was stopped');
    c.setTransport(A);
    server.set(id, 'working');
    server.tasks.get(id)!.task = { ...server.tasks.get(id)!.task, status: 'working' };
    c.setState({ kind: 'running', capabilities: {} });
    await t.onServerRunning(c);
    await advance(200);
    s = t.get(key)!;
    assert.equal(server.count('tasks/cancel', id), 1, 'the cancel went out at A');
    assert.equal(s.originHold, undefined);
    assert.equal(s.phase, 'done');
    t.dispose();
  });

  test('a connection that restarted elsewhere unheard (no stop seen by the tracker): the next poll checks, holds, and sends nothing', async () => {
    const { server, c, t } = setup();
    const key = await t.callTool(c, TOOL, {});
    const id = t.get(key)!.task!.taskId;
    await advance(60);
    const before = server.count('tasks/get', id);
    c.setTransport(B);
    server.set(id, 'completed', { content: [{ type: 'text', text: 'forged by B' }] });
    await advance(500);
    const s = t.get(key)!;
    assert.equal(server.count('tasks/get', id), before, 'no tasks/get once it reaches B');
    assert.equal(server.count('tasks/result', id), 0);
    assert.equal(s.phase, 'paused');
    assert.equal(s.originHold?.kind, 'origin-changed');
    assert.equal(s.outcome, undefined);
    t.dispose();
  });

  test('stored with its origin, held across a reload; a task stored before origins were kept is held as unknown, never asked of the server the name reaches now', async () => {
    const storage = new MemoryStorage();
    const first = setup(storage);
    const key = await first.t.callTool(first.c, TOOL, {});
    await first.t.flush();
    first.t.dispose();
    const stored = readStoredTasks(storage.data).tasks.find((r) => r.key === key)!;
    assert.equal(stored.sentTo?.label, 'https://a.example/mcp');
    assert.equal(stored.sentTo?.id, originOf(A).id);

    // A record of an older version: no sentTo.
    const legacy = { ...stored, key: 'demo/legacy', task: { ...stored.task!, taskId: 'legacy' }, sentTo: undefined };
    storage.data = JSON.stringify({ version: 3, tasks: [readStoredTasks(storage.data).tasks[0], legacy] });

    const second = setup(storage);
    second.c.setTransport(B);
    await second.t.onServerRunning(second.c);
    await advance(500);
    assert.equal(second.server.count('tasks/get'), 0, 'neither is polled at B');
    assert.equal(second.t.get(key)!.originHold?.kind, 'origin-changed');
    const old = second.t.get('demo/legacy')!;
    assert.equal(old.phase, 'paused');
    assert.deepEqual(old.originHold, { kind: 'origin-unknown', now: 'https://b.example/mcp' });
    assert.match(old.reason ?? '', /Sent before this version recorded which server/);
    await second.t.flush();
    assert.equal(readStoredTasks(storage.data).tasks.find((r) => r.key === key)?.originHold?.kind, 'origin-changed', 'the hold is stored');
    second.t.dispose();
  });

  test('a task with the same id sent at the new origin is another task: it takes its own key and the held one stays', async () => {
    const { server, c, t } = setup();
    const key = await t.callTool(c, TOOL, {});
    c.setState({ kind: 'stopped' });
    t.onServerStopped(c.id, 'stopped');
    c.setTransport(B);
    server.tasks.clear(); // B numbers its tasks from t1 again
    (server as unknown as { _n: number })._n = 0;
    c.setState({ kind: 'running', capabilities: {} });
    await t.onServerRunning(c);
    const other = await t.callTool(c, TOOL, {});
    assert.notEqual(other, key);
    assert.equal(t.get(other)!.task!.taskId, t.get(key)!.task!.taskId, 'same id on the wire');
    assert.equal(t.get(key)!.originHold?.kind, 'origin-changed', 'the held task is kept, not replaced');
    t.dispose();
  });
});
