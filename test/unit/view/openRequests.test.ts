/**
 * Plain requests (not tasks) a server sends this host, in the task view (core/view/openRequests.ts):
 * nested under the call they belong to, "waiting for you" only while they are open, and withdrawn
 * when that call ends however it ended — so the view's one waiting list (badge, status bar,
 * Respond…) never counts a request nothing waits for. And plain calls end with their true reason.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore } from '../../../src/core/base/lifecycle.js';
import type { ResponderContext } from '../../../src/core/receiver/wire/responders.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { interruptionReason, TaskTracker } from '../../../src/core/requestor/tracker.js';
import { OpenRequests, requestViewId } from '../../../src/core/view/openRequests.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { parseRowId, sentRowId } from '../../../src/core/view/rowIds.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const TASK_TOOL = { name: 'research', execution: { taskSupport: 'required' as const } };
const PLAIN_TOOL = { name: 'ask_plain' };

function setUp() {
  const server = new FakeTaskServer();
  server.pollInterval = 10;
  const connection = server.connection(definition('srv'));
  const ledger = new TaskLedger();
  const tracker = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined), minPollIntervalMs: 10 });
  const requests = new OpenRequests();
  const view = new TaskView(ledger, tracker, { coalesceMs: 0, requests });
  /** The stores of the requests' contexts (a responder's context owns one; the test does here). */
  const contextStores = new DisposableStore();
  /** A plain elicitation the server sends: it waits for the user until its signal aborts (withdrawn). */
  const ask = (extra: Partial<ResponderContext> = {}) => {
    const controller = new AbortController();
    let served!: ResponderContext;
    const answer = requests.serve(
      { serverId: 'srv', serverName: 'srv', definition: connection.definition, signal: controller.signal, store: contextStores.add(new DisposableStore()), owner: { kind: 'plain' }, setWaitingForUser: () => undefined, ...extra },
      'elicitation/create',
      { message: 'The research query could have multiple interpretations', requestedSchema: { type: 'object', properties: {} } },
      (ctx) =>
        new Promise<never>((_resolve, reject) => {
          served = ctx;
          ctx.setWaitingForUser(true, 'waiting for the user');
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        }),
    );
    const settled = answer.then(
      () => 'answered',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    return { id: requestViewId(served)!, controller, settled };
  };
  const changed = (check: () => boolean, what: string) => waitFor(view.onDidChange, check, what, 5_000);
  return {
    server,
    connection,
    ledger,
    tracker,
    requests,
    view,
    ask,
    changed,
    close() {
      view.dispose();
      requests.dispose();
      tracker.dispose();
      ledger.dispose();
      server.dispose();
      contextStores.dispose();
    },
  };
}

describe('plain requests in the task view', () => {
  checkLeaks();

  test('a row says its kind, and its id names the same kind and the same keys: a sent call, a received task, a plain request', async () => {
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
      h.server.set('t1', 'input_required');
      await h.changed(() => h.view.item(sentRowId(key))?.state === 'inputRequired', 'the task to need input');
      const r = h.ask({ relatedTaskId: 't1' });
      const received = await h.ledger.forServer('srv', 'srv').createTask({}, 1, { method: 'elicitation/create', params: { message: 'Pick', requestedSchema: {} } });
      await h.changed(() => h.view.items().length === 3, 'the three rows');
      const rows = h.view.items().map((i) => ({ kind: i.kind, id: parseRowId(i.id) }));
      assert.deepEqual(
        rows.sort((a, b) => a.kind.localeCompare(b.kind)),
        [
          { kind: 'received', id: { kind: 'received', serverId: 'srv', taskId: received.taskId } },
          { kind: 'request', id: { kind: 'request', serverId: 'srv', localId: h.requests.get(r.id)!.localId } },
          { kind: 'sent', id: { kind: 'sent', key } },
        ],
      );
    } finally {
      h.close();
    }
  });

  test('a request naming an input_required task nests under it and waits for you; cancelling the task withdraws it: nothing waits any more', async () => {
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, { topic: 'quantum', ambiguous: true });
      h.server.set('t1', 'input_required');
      await h.changed(() => h.view.item(`sent:${key}`)?.state === 'inputRequired', 'the task to need input');
      const r = h.ask({ relatedTaskId: 't1' });
      const item = h.view.item(r.id)!;
      assert.equal(item.parentId, `sent:${key}`, 'nested under the task it names');
      assert.equal(item.state, 'waitingForUser');
      assert.equal(item.mode, 'plain');
      assert.deepEqual(h.view.childrenOf(`sent:${key}`).map((i) => i.id), [r.id]);
      assert.deepEqual(h.view.waitingForUser().map((i) => i.id), [r.id]);
      assert.deepEqual({ active: h.view.counts().active, waiting: h.view.counts().waiting }, { active: 1, waiting: 1 });

      await h.tracker.cancel(key);
      assert.match(await r.settled, /The tool call "research" it was asked for was cancelled; nothing waits for this answer any more/);
      assert.equal(h.view.item(r.id), undefined, 'gone from the view');
      assert.deepEqual(h.view.waitingForUser(), []);
      assert.equal(h.view.counts().waiting, 0);
      assert.equal(h.requests.size, 0);
    } finally {
      h.close();
    }
  });

  test('completed, failed or lost: the request of the call is withdrawn too', async () => {
    for (const end of ['completed', 'failed', 'lost'] as const) {
      const h = setUp();
      try {
        const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
        h.server.set('t1', 'input_required');
        await h.changed(() => h.view.item(`sent:${key}`)?.state === 'inputRequired', 'the task to need input');
        const r = h.ask({ relatedTaskId: 't1' });
        assert.equal(h.view.counts().waiting, 1);
        if (end === 'lost') h.server.tasks.delete('t1');
        else h.server.set('t1', end);
        assert.match(await r.settled, /it was asked for ended; nothing waits/, end);
        assert.equal(h.view.counts().waiting, 0, end);
        assert.equal(h.view.item(r.id), undefined, end);
      } finally {
        h.close();
      }
    }
  });

  test('a request for a call that has already ended is withdrawn at once', async () => {
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
      h.server.set('t1', 'completed');
      await h.changed(() => h.view.item(`sent:${key}`)?.state === 'completed', 'the task to complete');
      const r = h.ask({ relatedTaskId: 't1' });
      assert.match(await r.settled, /nothing waits for this answer/);
      assert.equal(h.view.counts().waiting, 0);
    } finally {
      h.close();
    }
  });

  test('forgotten while its request is open (orphaned, then dismissed): the request is withdrawn', async () => {
    const h = setUp();
    try {
      const key = await h.tracker.callTool(h.connection, TASK_TOOL, {});
      const r = h.ask({ relatedTaskId: 't1' });
      h.tracker.setConfiguredServers([]);
      await h.changed(() => h.view.items().some((i) => i.direction === 'sent' && i.state === 'orphaned'), 'the task to be orphaned');
      const orphan = h.view.items().find((i) => i.direction === 'sent' && i.state === 'orphaned')!;
      h.tracker.remove(orphan.id.slice('sent:'.length));
      assert.match(await r.settled, /is gone; nothing waits for this answer/);
      assert.equal(h.view.counts().waiting, 0);
      assert.ok(key);
    } finally {
      h.close();
    }
  });

  test('withdrawn by its server (its signal), or answered: it leaves the view', async () => {
    const h = setUp();
    try {
      const r = h.ask();
      assert.equal(h.view.item(r.id)?.state, 'waitingForUser');
      assert.equal(h.view.item(r.id)?.parentId, undefined, 'no call in flight: not nested');
      r.controller.abort(new Error('the server cancelled it'));
      assert.equal(await r.settled, 'the server cancelled it');
      assert.equal(h.view.item(r.id), undefined);
    } finally {
      h.close();
    }
  });

  test('the API does not list a plain request as a task; a received task\'s view id is its own', () => {
    const ctx = { serverId: 's', taskId: 'abc' } as ResponderContext;
    assert.equal(requestViewId(ctx), 'received:s/abc');
    assert.equal(requestViewId({ serverId: 's' } as ResponderContext), undefined);
  });
});

describe('plain calls end with their true reason and stop their clocks', () => {
  checkLeaks();

  test('a plain call in flight is "running"; the one request then asked nests under it', async () => {
    const h = setUp();
    try {
      void h.tracker.callTool(h.connection, PLAIN_TOOL, { q: 'x' });
      await h.changed(() => h.view.items().some((i) => i.title === PLAIN_TOOL.name), 'the call to go out');
      const call = h.view.items().find((i) => i.title === PLAIN_TOOL.name)!;
      assert.equal(call.state, 'running');
      const r = h.ask();
      assert.equal(h.view.item(r.id)?.parentId, call.id);
      h.server.plainCalls[0]!({ content: [{ type: 'text', text: 'ok' }] });
      assert.match(await r.settled, /it was asked for ended/);
    } finally {
      h.close();
    }
  });

  test('its server crashes: the call ends "error" with the server\'s reason (not "cancelled"), at that time', async () => {
    const h = setUp();
    try {
      void h.tracker.callTool(h.connection, PLAIN_TOOL, {});
      await h.changed(() => h.view.items().some((i) => i.title === PLAIN_TOOL.name && i.state === 'running'), 'the call to run');
      const id = h.view.items().find((i) => i.title === PLAIN_TOOL.name)!.id;
      const crash = { kind: 'error' as const, message: '"srv" exited unexpectedly (exit code 1); restarting in 1 s', retryAt: Date.now() + 1000 };
      h.connection.setState(crash);
      h.tracker.onServerStopped('srv', interruptionReason('srv', crash));
      // The SDK's rejection of the aborted request comes after: it must not turn this into a cancel.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      const item = h.view.item(id)!;
      assert.equal(item.state, 'error');
      assert.equal(item.detail, '"srv" exited unexpectedly (exit code 1)', 'the cause, without the retry that is stale once it ran');
      assert.equal(h.tracker.get(id.slice('sent:'.length))?.cancelledByUser, undefined);
      assert.ok(item.endedAt !== undefined && item.endedAt >= item.createdAt, 'its end is known: its clock stops there');
    } finally {
      h.close();
    }
  });

  test('cancelled by the user: "cancelled", with its end time', async () => {
    const h = setUp();
    try {
      void h.tracker.callTool(h.connection, PLAIN_TOOL, {});
      await h.changed(() => h.view.items().some((i) => i.title === PLAIN_TOOL.name && i.state === 'running'), 'the call to run');
      const id = h.view.items().find((i) => i.title === PLAIN_TOOL.name)!.id;
      await h.tracker.cancel(id.slice('sent:'.length));
      await h.changed(() => h.view.item(id)?.state === 'cancelled', 'the call to be cancelled');
      assert.ok(h.view.item(id)!.endedAt !== undefined);
    } finally {
      h.close();
    }
  });

  test('interruptionReason says how the server left', () => {
    assert.equal(interruptionReason('s', { kind: 'stopped' }), '"s" was stopped');
    assert.equal(interruptionReason('s', { kind: 'error', message: '"s" failed to start: boom' }), '"s" failed to start: boom');
    assert.equal(interruptionReason('s', { kind: 'error', message: '"s" is unreachable: x; reconnecting in 8 s', retryAt: 1 }), '"s" is unreachable: x');
    assert.equal(interruptionReason('s', { kind: 'blocked', reason: 'not trusted' }), '"s" is not started: not trusted');
  });
});
