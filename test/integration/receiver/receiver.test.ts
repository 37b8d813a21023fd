/**
 * The receiver side against a real SDK server (the probe fixture) acting as requestor, over
 * stdio and Streamable HTTP: every answer the host gives to task-augmented sampling and
 * elicitation, tasks/get, tasks/result, tasks/list and tasks/cancel.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/client';
import { ProtocolError as McpError } from '../../../src/core/base/errors.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { USER_REJECTED } from '../../../src/core/sampling/sampling.js';
import { serveProbeHttp } from '../../fixtures/probeServer.js';
import { fixture, httpDefinition, makeHost, stdioDefinition, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

type Answer = { result?: Record<string, unknown> & { task?: { taskId: string; status: string; ttl: number; pollInterval?: number } }; error?: { code: number; message: string } };
type Host = ReturnType<typeof makeHost>;

const SAMPLE = (text: string, task?: { ttl?: number }) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 50, ...(task ? { task } : {}) },
});
const ELICIT = (task?: { ttl?: number }) => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Who are you?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] },
    ...(task ? { task } : {}),
  },
});

async function probe(h: Host, steps: unknown[]): Promise<Answer[]> {
  const r = await h.connection.client.callTool({ name: 'probe', arguments: { steps } }, { timeout: 60_000 });
  return JSON.parse(textOf(r)) as Answer[];
}

/** Starts a probe call without waiting for it. */
function probeLater(h: Host, steps: unknown[]): Promise<Answer[]> {
  return probe(h, steps);
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

for (const transport of ['stdio', 'http'] as const) {
  describe(`receiver over ${transport}`, () => {
    let http: Awaited<ReturnType<typeof serveProbeHttp>> | undefined;
    const hosts: Host[] = [];
    const newHost = async (limits = {}, ledger?: TaskLedger, name = 'probe') => {
      const def = transport === 'stdio' ? stdioDefinition(name, process.execPath, [fixture('probeServer')]) : httpDefinition(name, http!.url);
      const h = makeHost(def, { operationsPerSecond: 10_000, operationsBurst: 10_000, ...limits }, ledger);
      hosts.push(h);
      await h.connection.start();
      return h;
    };
    before(async () => {
      if (transport === 'http') http = await serveProbeHttp();
    });
    // Each test's hosts are disposed after it (before the leak check, which is outside this describe).
    afterEach(() => {
      for (const h of hosts.splice(0)) h.dispose();
    });
    after(async () => {
      await http?.close();
    });

    test('R-CAP-1: initialize offers 2025-11-25 and declares sampling, elicitation (form, url) and the task capabilities', async () => {
      const h = await newHost();
      const r = await h.connection.client.callTool({ name: 'client_capabilities', arguments: {} });
      const { capabilities } = JSON.parse(textOf(r));
      assert.deepEqual(capabilities.tasks, { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } });
      assert.deepEqual(capabilities.elicitation, { form: {}, url: {} });
      assert.deepEqual(capabilities.sampling, {});
      assert.equal(h.connection.state.kind === 'running' && h.connection.state.protocolVersion, '2025-11-25');
    });

    test('R-CREATE-1/2, R-TASK-1/2, R-RESULT-1/3, R-META-2: a task-augmented sampling request, polled and fetched', async () => {
      const h = await newHost();
      const [created] = await probe(h, [SAMPLE('hello', { ttl: 60_000 })]);
      const task = created!.result!.task!;
      assert.equal(task.status, 'working');
      assert.equal(created!.result!.model, undefined, 'never the real result in the CreateTaskResult');
      await waitFor(h.ledger.onDidChange, () => h.tasks.get(task.taskId)?.task.status === 'completed', 'completion');
      const [got, result] = await probe(h, [
        { method: 'tasks/get', params: { taskId: task.taskId } },
        { method: 'tasks/result', params: { taskId: task.taskId } },
      ]);
      assert.equal(got!.result!.status, 'completed');
      assert.ok(got!.result!.createdAt && got!.result!.lastUpdatedAt);
      assert.ok(Date.parse(got!.result!.lastUpdatedAt as string) > Date.parse(got!.result!.createdAt as string));
      assert.equal((got!.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], undefined, 'no related-task metadata on tasks/get');
      assert.deepEqual(result!.result!.content, { type: 'text', text: 'echo: hello' });
      assert.equal(result!.result!.model, 'test-model');
      assert.deepEqual((result!.result!._meta as Record<string, unknown>)[RELATED_TASK_META_KEY], { taskId: task.taskId });
    });

    test('R-RESULT-2: tasks/result on a working task blocks until it is terminal', async () => {
      const h = await newHost({ pollIntervalMs: 50 });
      const gate = deferred<void>();
      h.responders.sampleImpl = async () => {
        await gate.promise;
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'late' } };
      };
      const [created] = await probe(h, [SAMPLE('x', {})]);
      const taskId = created!.result!.task!.taskId;
      const waiting = probeLater(h, [{ method: 'tasks/result', params: { taskId } }]);
      await waitFor(h.log.onLine, () => h.log.lines.some((l) => l.includes('"tasks/result"') && l.includes(taskId)), 'tasks/result to arrive');
      assert.equal(h.tasks.get(taskId)!.task.status, 'working');
      gate.resolve();
      const [r] = await waiting;
      assert.deepEqual(r!.result!.content, { type: 'text', text: 'late' });
    });

    test('R-RESULT-2 / R-SEC-3: a waiting tasks/result is answered when the task completes (no poll: pollInterval is 10 minutes) and costs one operation', async () => {
      const h = await newHost({ pollIntervalMs: 600_000, operationsPerSecond: 1, operationsBurst: 3 });
      const gate = deferred<void>();
      h.responders.sampleImpl = async () => {
        await gate.promise;
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'now' } };
      };
      const [created] = await probe(h, [SAMPLE('x', {})]);
      const taskId = created!.result!.task!.taskId;
      assert.equal(created!.result!.task!.pollInterval, 600_000);
      const waiting = probeLater(h, [{ method: 'tasks/result', params: { taskId } }]);
      await waitFor(h.log.onLine, () => h.log.lines.some((l) => l.includes('"tasks/result"') && l.includes(taskId)), 'tasks/result to arrive');
      gate.resolve();
      const [r] = await waiting;
      assert.deepEqual(r!.result!.content, { type: 'text', text: 'now' });
      assert.deepEqual((r!.result!._meta as Record<string, unknown>)[RELATED_TASK_META_KEY], { taskId });
      assert.equal(h.tasks.operationsAdmitted, 2, 'the create and the tasks/result, nothing for the wait');
    });

    test('R-RESULT-2 / R-CANCEL-2: a waiting tasks/result is answered as soon as the task is cancelled, or expires (-32602)', async () => {
      const h = await newHost({ pollIntervalMs: 600_000, maxTtlMs: 2_000 });
      h.responders.sampleImpl = () => new Promise(() => undefined);
      const [one, two] = await probe(h, [SAMPLE('c', { ttl: 60_000 }), SAMPLE('e', { ttl: 60_000 })]);
      const cancelledId = one!.result!.task!.taskId;
      const expiringId = two!.result!.task!.taskId;
      const waitCancelled = probeLater(h, [{ method: 'tasks/result', params: { taskId: cancelledId } }]);
      const waitExpiring = probeLater(h, [{ method: 'tasks/result', params: { taskId: expiringId } }]);
      await waitFor(h.log.onLine, () => h.log.lines.some((l) => l.includes('"tasks/result"') && l.includes(cancelledId)), 'tasks/result to arrive');
      const [cancel] = await probe(h, [{ method: 'tasks/cancel', params: { taskId: cancelledId } }]);
      assert.equal(cancel!.result!.status, 'cancelled');
      const [r1] = await waitCancelled;
      assert.ok(r1!.error, `a cancelled task has no result: ${JSON.stringify(r1)}`);
      assert.match(r1!.error!.message, /Cancelled by server/);
      const [r2] = await waitExpiring;
      assert.equal(r2!.error?.code, -32602, JSON.stringify(r2));
      assert.match(r2!.error!.message, /Task not found/);
    });

    test('R-META-1: replies to a server request that belongs to its task carry that related-task metadata', async () => {
      const h = await newHost();
      const _meta = { [RELATED_TASK_META_KEY]: { taskId: 'server-task-1' } };
      const [plain, elicit, created] = await probe(h, [
        { ...SAMPLE('related'), params: { ...SAMPLE('related').params, _meta } },
        { ...ELICIT(), params: { ...ELICIT().params, _meta } },
        { ...SAMPLE('related task', {}), params: { ...SAMPLE('related task', {}).params, _meta } },
      ]);
      assert.deepEqual(plain!.result!.content, { type: 'text', text: 'echo: related' });
      for (const [what, a] of [['sampling', plain], ['elicitation', elicit], ['CreateTaskResult', created]] as const) {
        assert.deepEqual((a!.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], { taskId: 'server-task-1' }, what);
      }
      const [unrelated] = await probe(h, [SAMPLE('unrelated')]);
      assert.equal((unrelated!.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], undefined);
    });

    test('task-augmented elicitation: the answer comes back through tasks/result', async () => {
      const h = await newHost();
      h.responders.elicitImpl = async () => ({ action: 'accept', content: { name: 'Ada', age: 36 } });
      const [created] = await probe(h, [ELICIT({ ttl: 30_000 })]);
      const taskId = created!.result!.task!.taskId;
      assert.match(h.tasks.get(taskId)!.info.title, /^Elicitation: Who are you\?/);
      const [r] = await probe(h, [{ method: 'tasks/result', params: { taskId } }]);
      assert.equal(r!.result!.action, 'accept');
      assert.deepEqual(r!.result!.content, { name: 'Ada', age: 36 });
    });

    test('R-ERR-1: malformed requests and unknown ids are answered -32602, never -32603', async () => {
      const h = await newHost();
      const answers = await probe(h, [
        { method: 'tasks/get', params: {} },
        { method: 'tasks/get', params: { taskId: 42 } },
        { method: 'tasks/get', params: { taskId: 'no-such-task' } },
        { method: 'tasks/result', params: { taskId: 'no-such-task' } },
        { method: 'tasks/result', params: {} },
        { method: 'tasks/cancel', params: { taskId: 'no-such-task' } },
        { method: 'tasks/cancel', params: { taskId: null } },
        { method: 'tasks/list', params: { cursor: 'never-issued' } },
        { method: 'tasks/list', params: { cursor: 17 } },
      ]);
      for (const [i, a] of answers.entries()) {
        assert.ok(a.error, `step ${i} must fail: ${JSON.stringify(a)}`);
        assert.equal(a.error.code, -32602, `step ${i}: ${a.error.message}`);
      }
      assert.match(answers[0]!.error!.message, /taskId/);
      // The connection stays healthy.
      assert.equal((await probe(h, [SAMPLE('still fine')]))[0]!.result!.role, 'assistant');
    });

    test('R-CANCEL-1/2/3: cancel aborts the work, answers the cancelled task; a second cancel is refused; it stays cancelled', async () => {
      const h = await newHost();
      let aborted = false;
      const release = deferred<void>();
      h.responders.sampleImpl = async (_p, ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        await release.promise;
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'too late' } };
      };
      const [created] = await probe(h, [SAMPLE('x', {})]);
      const taskId = created!.result!.task!.taskId;
      const [cancelled, again, get, result] = await probe(h, [
        { method: 'tasks/cancel', params: { taskId } },
        { method: 'tasks/cancel', params: { taskId } },
        { method: 'tasks/get', params: { taskId } },
        { method: 'tasks/result', params: { taskId } },
      ]);
      assert.equal(cancelled!.result!.status, 'cancelled');
      assert.equal(cancelled!.result!.taskId, taskId);
      assert.ok(aborted, 'the responder saw the abort');
      assert.equal(again!.error!.code, -32602);
      assert.match(again!.error!.message, /terminal status/);
      assert.equal(get!.result!.status, 'cancelled');
      assert.ok(result!.error, 'a cancelled task has no result');
      release.resolve();
      await waitFor(h.ledger.onAudit, () => h.tasks.get(taskId)!.audit.some((a) => a.event === 'discarded'), 'late result discarded');
      assert.equal((await probe(h, [{ method: 'tasks/get', params: { taskId } }]))[0]!.result!.status, 'cancelled');
    });

    test('R-LIST-1/2: tasks/list pages with opaque cursors until every task was seen', async () => {
      const h = await newHost({ listPageSize: 2 });
      const created = await probe(h, [SAMPLE('1', {}), SAMPLE('2', {}), SAMPLE('3', {}), SAMPLE('4', {}), SAMPLE('5', {})]);
      const ids = created.map((c) => c.result!.task!.taskId);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const [page] = await probe(h, [{ method: 'tasks/list', params: cursor ? { cursor } : {} }]);
        const tasks = page!.result!.tasks as Array<{ taskId: string }>;
        assert.ok(tasks.length <= 2);
        seen.push(...tasks.map((t) => t.taskId));
        cursor = page!.result!.nextCursor as string | undefined;
        pages++;
      } while (cursor);
      assert.deepEqual(seen, ids);
      assert.equal(pages, 3);
    });

    test('R-SEC-1 / R-LIST-3: another server connection can never see, read, list or cancel this one’s tasks', async () => {
      const shared = new TaskLedger({ limits: { operationsPerSecond: 10_000, operationsBurst: 10_000 } });
      const a = await newHost({}, shared, 'server-a');
      const b = await newHost({}, shared, 'server-b');
      const [created] = await probe(a, [SAMPLE('secret', {})]);
      const taskId = created!.result!.task!.taskId;
      const answers = await probe(b, [
        { method: 'tasks/get', params: { taskId } },
        { method: 'tasks/result', params: { taskId } },
        { method: 'tasks/cancel', params: { taskId } },
        { method: 'tasks/list', params: {} },
      ]);
      assert.equal(answers[0]!.error!.code, -32602);
      assert.equal(answers[1]!.error!.code, -32602);
      assert.equal(answers[2]!.error!.code, -32602);
      assert.deepEqual(answers[3]!.result!.tasks, []);
      const [own] = await probe(a, [{ method: 'tasks/get', params: { taskId } }]);
      assert.equal(own!.result!.taskId, taskId);
      assert.notEqual(own!.result!.status, 'cancelled');
    });

    test('R-SEC-2 / R-TASK-3: ttl is capped and reported; live tasks are limited with a clear error; the connection stays healthy', async () => {
      const h = await newHost({ maxTtlMs: 5_000, maxLiveTasksPerServer: 2 });
      const never = deferred<never>();
      h.responders.sampleImpl = () => never.promise;
      const [one, two, three] = await probe(h, [SAMPLE('a', { ttl: 10 ** 10 }), SAMPLE('b', {}), SAMPLE('c', {})]);
      assert.equal(one!.result!.task!.ttl, 5_000);
      assert.equal((await probe(h, [{ method: 'tasks/get', params: { taskId: one!.result!.task!.taskId } }]))[0]!.result!.ttl, 5_000);
      assert.ok(two!.result!.task);
      assert.match(three!.error!.message, /Too many active tasks.*limit 2/);
      const [cancel, four] = await probe(h, [{ method: 'tasks/cancel', params: { taskId: one!.result!.task!.taskId } }, SAMPLE('d', {})]);
      assert.equal(cancel!.result!.status, 'cancelled');
      assert.ok(four!.result!.task, 'a slot was freed');
    });

    test('R-NOTIFY-1: notifications/tasks/status on every status change, without related-task metadata', async () => {
      const h = await newHost();
      const [created] = await probe(h, [SAMPLE('n', {})]);
      const taskId = created!.result!.task!.taskId;
      await waitFor(h.ledger.onDidChange, () => h.tasks.get(taskId)?.task.status === 'completed', 'completion');
      let statuses: string[] = [];
      for (let i = 0; i < 50 && !statuses.includes('completed'); i++) {
        const r = await h.connection.client.callTool({ name: 'notifications', arguments: {} });
        const ns = JSON.parse(textOf(r)) as Array<{ method: string; params: { taskId: string; status: string; _meta?: Record<string, unknown> } }>;
        const mine = ns.filter((n) => n.method === 'notifications/tasks/status' && n.params.taskId === taskId);
        statuses = mine.map((n) => n.params.status);
        for (const n of mine) assert.equal(n.params._meta?.[RELATED_TASK_META_KEY], undefined);
      }
      // Not on creation: the CreateTaskResult carries the `working` task (see connection.ts).
      assert.deepEqual(statuses, ['completed']);
    });

    test('plain (not task-augmented) requests answer directly; a denial is a JSON-RPC error', async () => {
      const h = await newHost();
      const [ok] = await probe(h, [SAMPLE('plain')]);
      assert.deepEqual(ok!.result!.content, { type: 'text', text: 'echo: plain' });
      h.responders.sampleImpl = async () => {
        throw new McpError(USER_REJECTED, 'The user denied the sampling request');
      };
      const [denied] = await probe(h, [SAMPLE('no')]);
      assert.equal(denied!.error!.code, USER_REJECTED);
      const [deniedTask] = await probe(h, [SAMPLE('no', {})]);
      const taskId = deniedTask!.result!.task!.taskId;
      await waitFor(h.ledger.onDidChange, () => h.tasks.get(taskId)?.task.status === 'failed', 'failed');
      const [get, result] = await probe(h, [
        { method: 'tasks/get', params: { taskId } },
        { method: 'tasks/result', params: { taskId } },
      ]);
      assert.match(get!.result!.statusMessage as string, /denied/);
      assert.equal(result!.error!.code, USER_REJECTED, 'R-RESULT-1: the same JSON-RPC error the plain request got');
    });
  });
}
