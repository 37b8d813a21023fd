/**
 * The receiver's wire layer (HostClient + ServerTasks) against a real SDK `Server` over the SDK's
 * in-memory transport, with fake timers: what a server's requests cost, how `tasks/result` waits,
 * and the related-task metadata on the host's replies (R-SEC-3, R-RESULT-2, R-META-1/2).
 */
import { afterEach, describe, mock, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { receiverOf } from '../../../src/core/receiver/wire/receiverSide.js';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RELATED_TASK_META_KEY, ResultSchema, type Result } from '@modelcontextprotocol/sdk/types.js';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger, type AuditRecord, type LedgerLimits } from '../../../src/core/receiver/ledger.js';
import { MemoryLog, ScriptedResponders, stdioDefinition } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

type Outcome = { result?: Result & Record<string, unknown>; error?: { code: number; message: string } };

/** Lets every queued microtask and immediate run (the in-memory transport delivers synchronously). */
async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Flushes until `check()` holds; fails after `rounds` flushes (no timers involved). */
async function until(check: () => boolean, what: string, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds && !check(); i++) await settle(1);
  assert.ok(check(), `never happened: ${what}`);
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A host connection (the real McpConnection) wired to an SDK Server in memory. */
async function connect(limits: Partial<LedgerLimits>) {
  const ledger = new TaskLedger({ limits, now: () => Date.now() });
  const audit: AuditRecord[] = [];
  ledger.onAudit((a) => audit.push(a));
  const responders = new ScriptedResponders();
  const server = new Server({ name: 'fake', version: '1.0.0' }, { capabilities: {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // What reaches the server, in arrival order: `result <id>` for a response, the method otherwise.
  const arrivals: string[] = [];
  const sdkOnMessage = serverSide.onmessage!;
  serverSide.onmessage = (m, extra) => {
    arrivals.push('method' in m ? m.method : `result ${String(m.id)}`);
    sdkOnMessage(m, extra);
  };
  const connection = new McpConnection(stdioDefinition('fake', 'unused', []), {
    sides: hostSides(ledger, responders),
    log: new MemoryLog(),
    variables: { env: {}, workspaceFolder: '/' },
    transportFactory: () => clientSide,
  });
  await connection.start();
  let wireRequests = 0;
  /** Sends one raw request (no client-side validation) and records its answer (and its JSON-RPC id, once sent). */
  const send = (method: string, params: Record<string, unknown>) => {
    wireRequests++;
    const out: Outcome & { done: boolean; wireId?: number } = { done: false, wireId: (server as unknown as { _requestMessageId: number })._requestMessageId };
    const promise = server.request({ method, params } as never, ResultSchema.passthrough(), { timeout: 10 * 60_000 }).then(
      (result) => Object.assign(out, { result, done: true }),
      (e: { code: number; message: string }) => Object.assign(out, { error: { code: e.code, message: e.message }, done: true }),
    );
    return Object.assign(out, { promise });
  };
  const requestSignals = () => [...(connection.client as unknown as { _requestHandlerAbortControllers: Map<unknown, AbortController> })._requestHandlerAbortControllers.values()].map((c) => c.signal);
  return {
    ledger,
    audit,
    responders,
    connection,
    tasks: receiverOf(connection)!.tasks,
    arrivals,
    send,
    requestSignals,
    get wireRequests() {
      return wireRequests;
    },
    async dispose() {
      connection.dispose();
      ledger.dispose();
      await server.close();
    },
  };
}

const SAMPLE = (extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5, ...extra });

describe('receiver wire layer (HostClient + ServerTasks, fake time)', () => {
  afterEach(() => mock.timers.reset());
  checkLeaks();

  test('R-SEC-3 / R-RESULT-2: a server waiting 60 s on one tasks/result spends no budget, gets no error, and adds no listener per poll', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    const h = await connect({ pollIntervalMs: 50, operationsPerSecond: 10, operationsBurst: 10 });
    try {
      const gate = deferred<void>();
      h.responders.sampleImpl = async () => {
        await gate.promise;
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'done' } };
      };
      const created = h.send('sampling/createMessage', SAMPLE({ task: { ttl: 10 * 60_000 } }));
      await until(() => created.done, 'CreateTaskResult');
      const taskId = (created.result!.task as { taskId: string }).taskId;
      assert.equal((created.result!.task as { pollInterval: number }).pollInterval, 50);

      const waiting = h.send('tasks/result', { taskId });
      await until(() => h.requestSignals().length === 1, 'tasks/result to reach the host');
      const [signal] = h.requestSignals();
      const listeners = new Set<number>();
      for (let ms = 0; ms < 60_000; ms += 50) {
        mock.timers.tick(50);
        await settle(1);
        listeners.add(getEventListeners(signal!, 'abort').length);
      }
      assert.equal(waiting.done, false, `still waiting after 60 s: ${JSON.stringify(waiting)}`);
      assert.deepEqual([...listeners], [1], 'one abort listener for the whole wait');
      assert.deepEqual(h.audit.filter((a) => a.event === 'rejected'), [], 'no request was refused');
      assert.equal(h.tasks.operationsAdmitted, h.wireRequests, 'budget spent = wire requests');
      assert.equal(h.wireRequests, 2);

      // Event-driven: the answer goes out when the task completes, with no timer ticked.
      gate.resolve();
      await until(() => waiting.done, 'tasks/result answered without a poll');
      assert.equal(waiting.error, undefined);
      assert.deepEqual(waiting.result!.content, { type: 'text', text: 'done' });
      assert.deepEqual((waiting.result!._meta as Record<string, unknown>)[RELATED_TASK_META_KEY], { taskId }, 'R-RESULT-3');
      assert.equal(getEventListeners(signal!, 'abort').length, 0, 'the listener is removed when the wait ends');
      assert.equal(h.tasks.operationsAdmitted, 2);
    } finally {
      await h.dispose();
    }
  });

  test('R-SEC-3: each wire request costs exactly one operation, however many store reads the SDK makes for it', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    const h = await connect({ operationsPerSecond: 1, operationsBurst: 6 });
    try {
      h.responders.sampleImpl = () => new Promise(() => undefined);
      const a = h.send('sampling/createMessage', SAMPLE({ task: {} }));
      await until(() => a.done, 'create');
      const taskId = (a.result!.task as { taskId: string }).taskId;
      // tasks/cancel alone reads the store three times in the SDK.
      for (const [method, params] of [
        ['tasks/get', { taskId }],
        ['tasks/list', {}],
        ['tasks/cancel', { taskId }],
        ['tasks/result', { taskId }],
      ] as const) {
        const r = h.send(method, params);
        await until(() => r.done, method);
      }
      assert.equal(h.tasks.operationsAdmitted, 5);
      assert.deepEqual(h.audit.filter((r) => r.event === 'rejected'), []);
      // Plain (not task-augmented) requests are not task operations.
      const plain = h.send('ping', {});
      await until(() => plain.done, 'ping');
      assert.equal(h.tasks.operationsAdmitted, 5);
      // The sixth operation spends the burst; the seventh is refused with a clear -32600.
      const sixth = h.send('tasks/get', { taskId });
      const seventh = h.send('tasks/get', { taskId });
      await until(() => sixth.done && seventh.done, 'two gets');
      assert.equal(sixth.result!.status, 'cancelled');
      assert.equal(seventh.error?.code, -32600);
      assert.match(seventh.error!.message, /Rate limit exceeded for tasks\/get.*operationsPerSecond/);
      // One second of (fake) time refills one operation.
      mock.timers.tick(1000);
      const again = h.send('tasks/get', { taskId });
      await until(() => again.done, 'get after refill');
      assert.equal(again.result!.status, 'cancelled');
    } finally {
      await h.dispose();
    }
  });

  test('R-TASK-2 / R-ERR-1: tasks/get (answered by the host without the SDK handler) shows every change at once, and -32602 for bad ids', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    const h = await connect({});
    try {
      const gate = deferred<void>();
      let waitingForUser: ((w: boolean, m?: string) => void) | undefined;
      h.responders.sampleImpl = async (_p, ctx) => {
        waitingForUser = (w, m) => ctx.setWaitingForUser(w, m);
        await gate.promise;
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'done' } };
      };
      const created = h.send('sampling/createMessage', SAMPLE({ task: { ttl: 60_000 } }));
      await until(() => created.done && waitingForUser !== undefined, 'CreateTaskResult');
      const taskId = (created.result!.task as { taskId: string }).taskId;
      const get = async () => {
        const r = h.send('tasks/get', { taskId });
        await until(() => r.done, 'tasks/get');
        assert.equal(r.error, undefined);
        assert.equal(r.result!._meta, undefined, 'R-META-2: no metadata on tasks/get');
        return r.result as unknown as { status: string; statusMessage?: string; createdAt: string; lastUpdatedAt: string };
      };
      const first = await get();
      assert.equal(first.status, 'working');
      assert.equal(first.lastUpdatedAt, first.createdAt);

      mock.timers.tick(5);
      waitingForUser!(true, 'Waiting for you');
      const waiting = await get();
      assert.equal(waiting.status, 'working');
      assert.equal(waiting.statusMessage, 'Waiting for you');
      assert.ok(Date.parse(waiting.lastUpdatedAt) > Date.parse(first.lastUpdatedAt), 'lastUpdatedAt moved');

      mock.timers.tick(5);
      gate.resolve();
      await until(() => h.ledger.snapshot()[0]?.task.status === 'completed', 'completion');
      const done = await get();
      assert.equal(done.status, 'completed');
      assert.equal(done.statusMessage, undefined);
      assert.ok(Date.parse(done.lastUpdatedAt) > Date.parse(waiting.lastUpdatedAt), 'lastUpdatedAt moved again');
      assert.equal(done.createdAt, first.createdAt);

      const bad = [h.send('tasks/get', { taskId: 'no-such-task' }), h.send('tasks/get', { taskId: '' }), h.send('tasks/get', { taskId: 42 }), h.send('tasks/get', {})];
      await until(() => bad.every((r) => r.done), 'bad gets');
      assert.deepEqual(
        bad.map((r) => r.error?.code),
        [-32602, -32602, -32602, -32602],
      );
      // The server's SDK puts its "MCP error <code>: " in front, once.
      assert.equal(bad[0]!.error!.message, 'MCP error -32602: Failed to retrieve task: Task not found');
      assert.equal(bad[1]!.error!.message, 'MCP error -32602: Invalid params: "taskId" must be a non-empty string');
      assert.equal(bad[2]!.error!.message, 'MCP error -32602: tasks/get: params.taskId must be a string, not a number');
      assert.equal(bad[3]!.error!.message, 'MCP error -32602: tasks/get: params.taskId is required (expected a string)');
      assert.equal(h.tasks.operationsAdmitted, h.wireRequests, 'each tasks/get costs one operation');
    } finally {
      await h.dispose();
    }
  });

  test('R-NOTIFY-1: a task that ends while it is being created is announced after its CreateTaskResult, never before', async () => {
    const h = await connect({});
    try {
      // The default sampler answers at once: the task completes before the SDK has sent the CreateTaskResult.
      const created = h.send('sampling/createMessage', SAMPLE({ task: {} }));
      await until(() => created.done && h.arrivals.includes('notifications/tasks/status'), 'CreateTaskResult and notification');
      const taskId = (created.result!.task as { taskId: string }).taskId;
      assert.equal((created.result!.task as { status: string }).status, 'working', 'R-CREATE-2');
      assert.equal(h.tasks.get(taskId)?.task.status, 'completed');
      assert.deepEqual(
        h.arrivals.filter((a) => a === `result ${created.wireId}` || a === 'notifications/tasks/status'),
        [`result ${created.wireId}`, 'notifications/tasks/status'],
        'the server hears of the task (its id) before it hears the task changed',
      );

      // A change long after the answer is announced too, once per change.
      const gate = deferred<void>();
      h.responders.sampleImpl = async () => {
        await gate.promise;
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'late' } };
      };
      const slow = h.send('sampling/createMessage', SAMPLE({ task: {} }));
      await until(() => slow.done, 'second CreateTaskResult');
      const before = h.arrivals.filter((a) => a === 'notifications/tasks/status').length;
      gate.resolve();
      await until(() => h.arrivals.filter((a) => a === 'notifications/tasks/status').length === before + 1, 'the completion notification');
      await settle();
      assert.equal(h.arrivals.filter((a) => a === 'notifications/tasks/status').length, before + 1, 'one notification per change');
    } finally {
      await h.dispose();
    }
  });

  test('R-NOTIFY-1: nothing queued is sent once the connection is disposed', async () => {
    const h = await connect({});
    const created = h.send('sampling/createMessage', SAMPLE({ task: {} }));
    // Dispose in the same turn the task completes: its notification is still queued.
    const sub = h.ledger.onDidChange((c) => {
      if (c.kind === 'updated' && c.task.status === 'completed') h.connection.dispose();
    });
    try {
      await until(() => created.done, 'CreateTaskResult (or the closed connection)');
      await settle(5);
      assert.deepEqual(h.arrivals.filter((a) => a === 'notifications/tasks/status'), []);
    } finally {
      sub.dispose();
      await h.dispose();
    }
  });

  test('R-RESULT-2: a waiting tasks/result is answered when the task is cancelled, and -32602 when it expires', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    const h = await connect({ pollIntervalMs: 60_000, maxTtlMs: 5_000 });
    try {
      h.responders.sampleImpl = () => new Promise(() => undefined);
      const one = h.send('sampling/createMessage', SAMPLE({ task: {} }));
      const two = h.send('sampling/createMessage', SAMPLE({ task: {} }));
      await until(() => one.done && two.done, 'creates');
      const cancelledId = (one.result!.task as { taskId: string }).taskId;
      const expiringId = (two.result!.task as { taskId: string }).taskId;
      const r1 = h.send('tasks/result', { taskId: cancelledId });
      const r2 = h.send('tasks/result', { taskId: expiringId });
      await until(() => h.requestSignals().length === 2, 'both tasks/result waiting');

      h.tasks.cancel(cancelledId, 'Cancelled by the user');
      await until(() => r1.done, 'answer for the cancelled task');
      assert.equal(r1.error?.code, -32603, 'a cancelled task has no result');
      assert.match(r1.error!.message, /Cancelled by the user/);
      assert.equal(r2.done, false);

      mock.timers.tick(5_000); // the ttl passes: the expiry sweep removes the task
      await until(() => r2.done, 'answer for the expired task');
      assert.equal(r2.error?.code, -32602);
      assert.match(r2.error!.message, /Task not found.*ttl passed/);
    } finally {
      await h.dispose();
    }
  });

  test('R-META-1 / R-META-2: replies to requests that belong to a task carry its related-task metadata; tasks/get, list, cancel do not', async () => {
    const h = await connect({});
    try {
      const related = { [RELATED_TASK_META_KEY]: { taskId: 'server-task-7' } };
      h.responders.elicitImpl = async () => ({ action: 'accept', content: { name: 'Ada' } });
      const plainSample = h.send('sampling/createMessage', SAMPLE({ _meta: related }));
      const elicit = h.send('elicitation/create', { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } }, _meta: related });
      const taskSample = h.send('sampling/createMessage', SAMPLE({ task: {}, _meta: related }));
      const unrelated = h.send('sampling/createMessage', SAMPLE());
      await until(() => plainSample.done && elicit.done && taskSample.done && unrelated.done, 'answers');
      for (const [what, r] of [
        ['sampling', plainSample],
        ['elicitation', elicit],
        ['CreateTaskResult', taskSample],
      ] as const) {
        assert.deepEqual((r.result?._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], { taskId: 'server-task-7' }, what);
      }
      assert.equal(elicit.result!.action, 'accept', 'the rest of the answer is unchanged');
      assert.equal((unrelated.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], undefined, 'no metadata on a reply to an unrelated request');

      const taskId = (taskSample.result!.task as { taskId: string }).taskId;
      await until(() => h.tasks.get(taskId)?.task.status === 'completed', 'completion');
      const replies = ['tasks/get', 'tasks/list', 'tasks/result'].map((m) => h.send(m, m === 'tasks/list' ? { _meta: related } : { taskId, _meta: related }));
      await until(() => replies.every((r) => r.done), 'tasks/* answers');
      const [get, list, result] = replies;
      assert.equal((get!.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], undefined, 'R-META-2: tasks/get');
      assert.equal((list!.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], undefined, 'R-META-2: tasks/list');
      assert.deepEqual((result!.result!._meta as Record<string, unknown>)[RELATED_TASK_META_KEY], { taskId }, 'R-RESULT-3: tasks/result names the task the taskId param names');

      h.responders.sampleImpl = () => new Promise(() => undefined);
      const live = h.send('sampling/createMessage', SAMPLE({ task: {} }));
      await until(() => live.done, 'create');
      const cancel = h.send('tasks/cancel', { taskId: (live.result!.task as { taskId: string }).taskId, _meta: related });
      await until(() => cancel.done, 'cancel');
      assert.equal(cancel.result!.status, 'cancelled');
      assert.equal((cancel.result!._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY], undefined, 'R-META-2: tasks/cancel');
    } finally {
      await h.dispose();
    }
  });
});

describe('ServerTasks.whenTerminal (the wait behind tasks/result)', () => {
  const REQ = { method: 'sampling/createMessage', params: {} };
  const codeOf = async (p: Promise<unknown>) => p.then(() => 'resolved', (e: { code?: number }) => e.code);
  checkLeaks();

  test('R-RESULT-2: resolves on completion; at once for a terminal task; -32602 for unknown or malformed ids — all free of budget', async () => {
    const l = new TaskLedger({ limits: { operationsPerSecond: 1, operationsBurst: 1 } });
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    const ac = new AbortController();
    const waits = [s.whenTerminal(t.taskId, ac.signal), s.whenTerminal(t.taskId, ac.signal)];
    assert.equal(getEventListeners(ac.signal, 'abort').length, 2, 'one listener per waiting request');
    s.complete(t.taskId, 'completed', { kind: 'result', result: {} });
    assert.deepEqual(await Promise.all(waits.map(codeOf)), ['resolved', 'resolved']);
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
    assert.equal(await codeOf(s.whenTerminal(t.taskId, ac.signal)), 'resolved');
    assert.equal(await codeOf(s.whenTerminal('no-such-task', ac.signal)), -32602);
    assert.equal(await codeOf(s.whenTerminal(42 as unknown as string, ac.signal)), -32602);
    assert.equal(s.operationsAdmitted, 0);
    l.dispose();
  });

  test('an aborted wait ends alone (-32600), removes its listener, and leaves the other waits in place', async () => {
    const l = new TaskLedger();
    const s = l.forServer('a', 'A');
    const t = await s.createTask({}, 1, REQ);
    const gone = new AbortController();
    const stays = new AbortController();
    const a = s.whenTerminal(t.taskId, gone.signal);
    const b = s.whenTerminal(t.taskId, stays.signal);
    gone.abort();
    assert.equal(await codeOf(a), -32600);
    assert.equal(getEventListeners(gone.signal, 'abort').length, 0);
    assert.equal(await codeOf(s.whenTerminal(t.taskId, gone.signal)), -32600, 'an already aborted signal');
    assert.equal(getEventListeners(gone.signal, 'abort').length, 0);
    s.cancel(t.taskId, 'user');
    assert.equal(await codeOf(b), 'resolved', 'cancelled is terminal: tasks/result then answers the cancellation');
    l.dispose();
  });

  test('R-SEC-2: a task whose scope is deleted or the ledger disposed releases its waits', async () => {
    const l = new TaskLedger();
    const s = l.forServer('a', 'A');
    const t1 = await s.createTask({}, 1, REQ);
    const ac = new AbortController();
    const w = s.whenTerminal(t1.taskId, ac.signal);
    l.forgetServer('a');
    assert.equal(await codeOf(w), 'resolved');
    const s2 = l.forServer('b', 'B');
    const t2 = await s2.createTask({}, 1, REQ);
    const w2 = s2.whenTerminal(t2.taskId, ac.signal);
    l.dispose();
    assert.equal(await codeOf(w2), 'resolved');
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
  });
});
