import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Result } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError as McpError } from '../../../src/core/base/errors.js';
import { MAX_TIMER_DELAY_MS, TaskLedger, type AuditRecord, type LedgerChange } from '../../../src/core/receiver/ledger.js';
import { IllegalTransitionError } from '../../../src/core/base/errors.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const REQ = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };

function ledger(limits = {}, now?: () => number) {
  return new TaskLedger({ limits: { operationsPerSecond: 1e6, operationsBurst: 1e6, ...limits }, now });
}

async function rejectsWith(p: Promise<unknown>, code: number, re?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof McpError, `expected McpError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (re) assert.match(e.message, re);
    return true;
  });
}

describe('TaskLedger (receiver task store)', () => {
  checkLeaks();

  test('R-CREATE-2 / R-TASK-1: a new task is working, with every field', async () => {
    const l = ledger();
    const t = await l.forServer('a', 'A').createTask({ ttl: 60_000 }, 1, REQ);
    assert.equal(t.status, 'working');
    assert.equal(typeof t.taskId, 'string');
    assert.equal(t.ttl, 60_000);
    assert.ok(!Number.isNaN(Date.parse(t.createdAt)));
    assert.equal(t.createdAt, t.lastUpdatedAt);
    assert.equal(typeof t.pollInterval, 'number');
    l.dispose();
  });

  test('R-CREATE-3: task ids are unique and unguessable (random UUIDs)', async () => {
    const l = ledger({ maxLiveTasksPerServer: 1000 });
    const s = l.forServer('a', 'A');
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add((await s.createTask({}, i, REQ)).taskId);
    assert.equal(ids.size, 200);
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    l.dispose();
  });

  test('R-TASK-3 / R-SEC-2: a ttl above the maximum is capped and the actual ttl reported; none requested → default', async () => {
    const l = ledger({ maxTtlMs: 1000, defaultTtlMs: 500 });
    const s = l.forServer('a', 'A');
    const big = await s.createTask({ ttl: 10 ** 12 }, 1, REQ);
    assert.equal(big.ttl, 1000);
    assert.equal((await s.getTask(big.taskId))!.ttl, 1000);
    assert.equal((await s.createTask({}, 2, REQ)).ttl, 500);
    assert.equal((await s.createTask({ ttl: null }, 3, REQ)).ttl, 1000, 'unlimited is capped too');
    assert.equal((await s.createTask({ ttl: 200 }, 4, REQ)).ttl, 200);
    l.dispose();
  });

  test('R-SEC-2: no timer gets a delay above 2^31-1 ms (Node would fire it at once)', async () => {
    const delays: number[] = [];
    const original = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return original(fn, ms);
    }) as typeof setTimeout;
    try {
      const l = ledger({ maxTtlMs: 2 ** 40 });
      const t = await l.forServer('a', 'A').createTask({ ttl: 2 ** 40 }, 1, REQ);
      assert.equal(t.ttl, 2 ** 40, 'the granted ttl itself may be long');
      assert.ok(delays.length > 0, 'an expiry timer was scheduled');
      assert.ok(delays.every((d) => d <= MAX_TIMER_DELAY_MS), `delays ${delays.join(', ')}`);
      l.dispose();
    } finally {
      globalThis.setTimeout = original;
    }
  });

  test('R-TASK-2: lastUpdatedAt moves on every change, even within one millisecond', async () => {
    const fixed = 1_700_000_000_000;
    const l = ledger({}, () => fixed);
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    s.setWaitingForUser(t.taskId, true, 'waiting');
    const t2 = (await s.getTask(t.taskId))!;
    assert.ok(Date.parse(t2.lastUpdatedAt) > Date.parse(t.lastUpdatedAt));
    s.complete(t.taskId, 'completed', { kind: 'result', result: {} });
    const t3 = (await s.getTask(t.taskId))!;
    assert.ok(Date.parse(t3.lastUpdatedAt) > Date.parse(t2.lastUpdatedAt));
    assert.equal(t3.createdAt, t.createdAt);
    l.dispose();
  });

  test('R-LIFE-2: terminal statuses never move again; illegal transitions throw clearly', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    await s.updateTaskStatus(t.taskId, 'input_required');
    await s.updateTaskStatus(t.taskId, 'working');
    s.complete(t.taskId, 'completed', { kind: 'result', result: { ok: 1 } as Result });
    await assert.rejects(s.updateTaskStatus(t.taskId, 'working'), (e: unknown) => e instanceof IllegalTransitionError && /terminal status 'completed'/.test(e.message));
    assert.equal((await s.getTask(t.taskId))!.status, 'completed');
    l.dispose();
  });

  test('R-GET-2 / R-ERR-1: unknown ids give null (SDK answers -32602); malformed ids throw -32602', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    assert.equal(await s.getTask('nope'), null);
    await rejectsWith(s.getTask(undefined as unknown as string), ErrorCode.InvalidParams, /taskId/);
    await rejectsWith(s.getTask(42 as unknown as string), ErrorCode.InvalidParams, /taskId/);
    await rejectsWith(s.getTaskResult('nope'), ErrorCode.InvalidParams, /not found/i);
    l.dispose();
  });

  test('R-RESULT-1: the stored result comes back unchanged (a copy); a stored error comes back as that JSON-RPC error', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const ok = await s.createTask({}, 1, REQ);
    const result = { model: 'm', role: 'assistant', content: { type: 'text', text: 'hi' } } as unknown as Result;
    s.complete(ok.taskId, 'completed', { kind: 'result', result });
    const got = await s.getTaskResult(ok.taskId);
    assert.deepEqual(got, result);
    (got as Record<string, unknown>).model = 'mutated';
    assert.equal(((await s.getTaskResult(ok.taskId)) as Record<string, unknown>).model, 'm', 'a copy, not a reference');

    const bad = await s.createTask({}, 2, REQ);
    s.complete(bad.taskId, 'failed', { kind: 'error', code: -1, message: 'User rejected' });
    await rejectsWith(s.getTaskResult(bad.taskId), -1, /User rejected/);
    const t = (await s.getTask(bad.taskId))!;
    assert.equal(t.status, 'failed');
    assert.match(t.statusMessage!, /User rejected/, 'R-LIFE-3: a failed task carries a diagnostic statusMessage');
    l.dispose();
  });

  test('R-ERR-2: work that throws ends the task failed with the error; an isError result ends it failed', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const a = await s.createTask({}, 1, REQ);
    s.run(a.taskId, async () => {
      throw new McpError(-32000, 'model unavailable');
    });
    await waitFor(l.onDidChange, () => s.get(a.taskId)?.task.status === 'failed', 'failed');
    await rejectsWith(s.getTaskResult(a.taskId), -32000, /model unavailable/);
    const b = await s.createTask({}, 2, REQ);
    s.run(b.taskId, async () => ({ content: [{ type: 'text', text: 'boom' }], isError: true }));
    await waitFor(l.onDidChange, () => s.get(b.taskId)?.task.status === 'failed', 'failed');
    assert.deepEqual(await s.getTaskResult(b.taskId), { content: [{ type: 'text', text: 'boom' }], isError: true });
    l.dispose();
  });

  test('R-CANCEL-1: cancelling a terminal task is refused; R-CANCEL-2: cancel aborts the work and reports cancelled', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    let aborted = false;
    let disposed = false;
    s.run(t.taskId, (signal, store) => {
      store.add({ dispose: () => (disposed = true) });
      return new Promise((_, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted')))));
    });
    await s.updateTaskStatus(t.taskId, 'cancelled', 'Client cancelled task execution.');
    const after = (await s.getTask(t.taskId))!;
    assert.equal(after.status, 'cancelled');
    assert.match(after.statusMessage!, /Cancelled by server "A"/);
    assert.ok(aborted, 'the work was aborted');
    assert.ok(disposed, 'the work store was disposed');
    assert.equal(s.cancel(t.taskId, 'again'), false);
    l.dispose();
  });

  test('R-CANCEL-3: a cancelled task stays cancelled even if the work finishes later', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    let finish!: (r: Result) => void;
    s.run(t.taskId, () => new Promise<Result>((r) => (finish = r)));
    s.cancel(t.taskId, 'user');
    finish({ late: true } as Result);
    await waitFor(l.onAudit, () => s.get(t.taskId)!.audit.some((a) => a.event === 'discarded'), 'discarded audit');
    assert.equal((await s.getTask(t.taskId))!.status, 'cancelled');
    assert.equal(s.get(t.taskId)!.outcome, undefined);
    l.dispose();
  });

  test('R-LIST-1/2: pages of the configured size with opaque cursors; a cursor that was never issued → -32602', async () => {
    const l = ledger({ listPageSize: 3, maxLiveTasksPerServer: 100 });
    const s = l.forServer('a', 'A');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await s.createTask({}, i, REQ)).taskId);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await s.listTasks(cursor);
      assert.ok(page.tasks.length <= 3);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ids);
    await rejectsWith(s.listTasks('not-a-cursor'), ErrorCode.InvalidParams, /cursor/i);
    await rejectsWith(s.listTasks('1.AAAAAAAAAAAAAAAAAAAAAA'), ErrorCode.InvalidParams, /cursor/i);
    l.dispose();
  });

  test('R-LIST-2: cursors stay valid while tasks before them are removed', async () => {
    const l = ledger({ listPageSize: 2, maxLiveTasksPerServer: 100 });
    const s = l.forServer('a', 'A');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await s.createTask({}, i, REQ)).taskId);
    const first = await s.listTasks();
    s.cancel(ids[0]!, 'x');
    s.remove(ids[0]!);
    const second = await s.listTasks(first.nextCursor);
    assert.deepEqual(second.tasks.map((t) => t.taskId), ids.slice(2, 4));
    l.dispose();
  });

  test('R-SEC-1 / R-LIST-3: one scope never sees, reads, lists or cancels another scope’s tasks; cursors are scope-bound', async () => {
    const l = ledger({ listPageSize: 1 });
    const a = l.forServer('a', 'A');
    const b = l.forServer('b', 'B');
    const ta = await a.createTask({}, 1, REQ);
    await a.createTask({}, 2, REQ);
    assert.equal(await b.getTask(ta.taskId), null);
    await rejectsWith(b.getTaskResult(ta.taskId), ErrorCode.InvalidParams);
    await rejectsWith(b.updateTaskStatus(ta.taskId, 'cancelled'), ErrorCode.InvalidParams);
    assert.deepEqual((await b.listTasks()).tasks, []);
    const pageA = await a.listTasks();
    assert.ok(pageA.nextCursor);
    await rejectsWith(b.listTasks(pageA.nextCursor), ErrorCode.InvalidParams, /cursor/i);
    assert.equal((await a.getTask(ta.taskId))!.status, 'working');
    l.dispose();
  });

  test('R-SEC-2: live tasks per server are limited with a clear error; terminal ones do not count', async () => {
    const l = ledger({ maxLiveTasksPerServer: 2 });
    const s = l.forServer('a', 'A');
    const t1 = await s.createTask({}, 1, REQ);
    await s.createTask({}, 2, REQ);
    await rejectsWith(s.createTask({}, 3, REQ), ErrorCode.InvalidRequest, /Too many active tasks.*limit 2/);
    s.complete(t1.taskId, 'completed', { kind: 'result', result: {} });
    await s.createTask({}, 4, REQ);
    assert.equal(s.liveCount, 2);
    // Another server has its own allowance.
    await l.forServer('b', 'B').createTask({}, 1, REQ);
    l.dispose();
  });

  test('R-SEC-3: task operations are rate-limited per server', async () => {
    let now = 1_000_000;
    const l = new TaskLedger({ limits: { operationsPerSecond: 10, operationsBurst: 5 }, now: () => now });
    const s = l.forServer('a', 'A');
    // Each wire request is admitted once (HostClient does this); the store reads themselves are free.
    const wire = async <T>(op: string, read: () => Promise<T>): Promise<T> => (s.admit(op), read());
    const t = await wire('create', () => s.createTask({}, 1, REQ));
    for (let i = 0; i < 4; i++) await wire('tasks/get', () => s.getTask(t.taskId));
    await rejectsWith(Promise.resolve().then(() => wire('tasks/get', () => s.getTask(t.taskId))), ErrorCode.InvalidRequest, /Rate limit/);
    const b = l.forServer('b', 'B');
    assert.ok(await (b.admit('tasks/list'), b.listTasks()), 'other servers are not affected');
    now += 500; // refills 5 tokens
    assert.ok(await wire('tasks/get', () => s.getTask(t.taskId)));
    l.dispose();
  });

  test('R-SEC-2: expired tasks are removed promptly (and their work aborted)', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({ ttl: 30 }, 1, REQ);
    let aborted = false;
    s.run(t.taskId, (signal) => new Promise((_, rej) => signal.addEventListener('abort', () => ((aborted = true), rej(new Error('x'))))));
    const removed: LedgerChange[] = [];
    l.onDidChange((c) => c.kind === 'removed' && removed.push(c));
    await waitFor(l.onDidChange, () => removed.length === 1, 'removal', 5000);
    assert.equal(await s.getTask(t.taskId), null);
    assert.ok(aborted);
    l.dispose();
  });

  test('R-SEC-4: the audit trail records created, status, retrieved, cancelled, expired, rejected — with the server', async () => {
    const l = ledger({ maxLiveTasksPerServer: 2 });
    const records: AuditRecord[] = [];
    l.onAudit((a) => records.push(a));
    const s = l.forServer('a', 'Server A');
    const t = await s.createTask({}, 1, REQ);
    s.complete(t.taskId, 'completed', { kind: 'result', result: {} });
    await s.getTaskResult(t.taskId);
    const c = await s.createTask({}, 2, REQ);
    s.cancel(c.taskId, 'user');
    await s.createTask({ ttl: 1 }, 3, REQ);
    await s.createTask({}, 4, REQ);
    await s.createTask({}, 5, REQ).catch(() => undefined);
    await s.getTask('unknown-id');
    await waitFor(l.onAudit, () => records.some((r) => r.event === 'expired'), 'expiry');
    const events = new Set(records.map((r) => r.event));
    for (const e of ['created', 'status', 'retrieved', 'cancelled', 'expired', 'rejected']) assert.ok(events.has(e as AuditRecord['event']), `audit has ${e}`);
    assert.ok(records.every((r) => r.serverName === 'Server A'));
    assert.ok(s.get(t.taskId)!.audit.length >= 3, 'kept per task for the tooltip');
    l.dispose();
  });

  test('snapshots are copies: changing one changes nothing stored', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    const snap = s.get(t.taskId)!;
    (snap.task as { status: string }).status = 'completed';
    assert.equal((await s.getTask(t.taskId))!.status, 'working');
    l.dispose();
  });

  test('dispose aborts every pending piece of work', async () => {
    const l = ledger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    let aborted = false;
    s.run(t.taskId, (signal) => new Promise((_, rej) => signal.addEventListener('abort', () => ((aborted = true), rej(new Error('x'))))));
    l.dispose();
    assert.ok(aborted);
  });
});
