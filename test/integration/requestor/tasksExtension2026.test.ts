/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`) on a real MCP 2026-07-28 session: the
 * demo server's `--revision 2026-07-28` mode (official SDK v2) over stdio and Streamable HTTP,
 * driven by the host's McpConnection and TaskTracker with scripted responders. What the server saw
 * — each request's envelope, and over HTTP its standard and routing headers — is read back through
 * its `ext_stats`. Sections: modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md.
 * Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { wire2026_07_28 } from '../../../src/core/requestor/wire/wire2026_07_28.js';
import { formLeftOpen, host2026, TASKS, transports2026, WAIT_MS, type Stats2026 } from '../../helpers/rev2026.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const TIMEOUT = { timeout: 60_000 };
const transports = transports2026();
after(() => {
  for (const t of transports) t.stop();
});

/** The requests the server saw for task `taskId` (tasks/get, tasks/update, tasks/cancel). */
function taskRequests(stats: Stats2026, taskId: string) {
  return stats.requests.filter((r) => r.method.startsWith('tasks/') && r.name === taskId);
}

describe('requestor: the Tasks extension on a 2026-07-28 session', () => {
  for (const transport of transports) {
    test(`${transport.name}: §Task Creation/§Task Polling: a tools/call answered with a task is tracked on the 2026-07-28 wire to its inline result; every request declares the extension in its envelope`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`task26-${transport.name}`));
      try {
        const key = await h.call('ext_count', { steps: 3, stepMs: 30 });
        const created = h.tracker.get(key)!;
        assert.equal(created.mode, 'task');
        assert.equal(created.wire, '2026-07-28');
        const taskId = created.task!.taskId;
        assert.equal(h.tracker.keyOfTask(h.connection.id, taskId), key, 'found by the server\'s task id, under the key the call was made with');
        await h.until(key, (s) => s.phase === 'done', 'the task to end');
        assert.equal(h.tracker.get(key)?.task?.status, 'completed');
        assert.equal(h.resultText(key), 'Counted to 3.');
        // One tasks/get of our own (polling may have been spared by notifications).
        const got = await wire2026_07_28.getTask(h.connection.client, taskId, AbortSignal.timeout(10_000));
        assert.equal(got.status, 'completed');
        const stats = await h.stats();
        assert.deepEqual(stats.toolCalls.filter((c) => c.name === 'ext_count'), [{ name: 'ext_count', declared: true }]);
        const sent = [...stats.requests.filter((r) => r.method === 'tools/call' && r.name === 'ext_count'), ...taskRequests(stats, taskId)];
        assert.ok(sent.some((r) => r.method === 'tasks/get'), 'tasks/get reached the server');
        for (const r of sent) {
          assert.equal(r.envelope?.protocolVersion, '2026-07-28');
          assert.ok(r.envelope?.extensions.includes(TASKS), `${r.method} declares ${TASKS}: ${JSON.stringify(r)}`);
        }
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: §Task Status Notifications: the task's end is pushed on its subscriptions/listen stream, with the result inline (no tasks/get needed)`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`task26-push-${transport.name}`));
      try {
        // A pollInterval of a minute: only the pushed notification can tell the tracker the task ended.
        const key = await h.call('ext_count', { steps: 2, stepMs: 50, pollIntervalMs: 60_000 });
        await h.until(key, (s) => s.phase === 'done', 'the pushed end');
        const s = h.tracker.get(key)!;
        assert.equal(s.task?.status, 'completed');
        assert.equal(h.resultText(key), 'Counted to 2.');
        assert.equal(s.polls, 0, 'no tasks/get');
        const stats = await h.stats();
        assert.deepEqual(stats.tasks[s.task!.taskId]?.gets, []);
        const listens = stats.requests.filter((r) => r.method === 'subscriptions/listen');
        assert.ok(listens.length >= 1 && listens.every((r) => r.envelope?.extensions.includes(TASKS)), JSON.stringify(listens));
        if (transport.name === 'http') assert.ok(listens.every((r) => r.headers?.mcpMethod === 'subscriptions/listen'), JSON.stringify(listens));
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: §Task Update Requests: the task's inputRequests reach the responders naming the task, and the answer goes back with tasks/update`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`task26-input-${transport.name}`));
      try {
        h.responders.elicitImpl = async (p, ctx) => {
          assert.equal(p.message, 'Please enter your name.');
          assert.equal(ctx.sentTask?.inputKey, 'name');
          assert.equal(ctx.sentTask?.taskId, h.tracker.get(ctx.sentTask!.key)?.task?.taskId, 'names the task');
          return { action: 'accept', content: { name: 'Luca' } };
        };
        const key = await h.call('ext_ask_name');
        await h.until(key, (s) => s.phase === 'done', 'the task to end');
        assert.equal(h.resultText(key), 'Hello, Luca!');
        const taskId = h.tracker.get(key)!.task!.taskId;
        assert.equal(h.responders.calls.length, 1, 'presented once');
        assert.equal(h.responders.calls[0]!.ctx.sentTask?.key, key);
        const stats = await h.stats();
        assert.deepEqual(stats.tasks[taskId]?.updates, ['name'], 'answered once, with tasks/update');
        const updates = taskRequests(stats, taskId).filter((r) => r.method === 'tasks/update');
        assert.equal(updates.length, 1);
        assert.ok(updates[0]!.envelope?.extensions.includes(TASKS));
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: §Task Cancellation: Cancel sends tasks/cancel and the task ends cancelled`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`task26-cancel-${transport.name}`));
      try {
        const key = await h.call('ext_count', { steps: 100, stepMs: 100 });
        const taskId = h.tracker.get(key)!.task!.taskId;
        await h.tracker.cancel(key);
        await h.until(key, (s) => s.phase === 'done', 'the task to end');
        assert.equal(h.tracker.get(key)?.task?.status, 'cancelled');
        const stats = await h.stats();
        assert.equal(stats.tasks[taskId]?.cancels, 1);
        assert.equal(stats.tasks[taskId]?.status, 'cancelled');
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: Cancel on a task whose cancelled status is pushed before tasks/cancel is acknowledged resolves quietly; the task ends cancelled`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`task26-cancel-pushed-${transport.name}`));
      try {
        // The server acknowledges tasks/cancel 300 ms after it pushed the cancelled status.
        const key = await h.call('ext_count', { steps: 100, stepMs: 100, cancelAckDelayMs: 300 });
        const taskId = h.tracker.get(key)!.task!.taskId;
        let pushed = false;
        const watch = h.connection.onDidReceiveNotification((m) => {
          const n = m as { method?: string; params?: { taskId?: string } };
          if (n.method === 'notifications/tasks' && n.params?.taskId === taskId) pushed = true;
        });
        try {
          await waitFor(h.connection.onDidReceiveNotification, () => pushed, 'the task status stream to deliver', WAIT_MS);
        } finally {
          watch.dispose();
        }
        const snapshot = await h.tracker.cancel(key);
        assert.equal(snapshot.task?.status, 'cancelled');
        assert.equal(h.tracker.get(key)?.phase, 'done');
        assert.equal((await h.stats()).tasks[taskId]?.cancels, 1);
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: a request a responder is still answering when its task is cancelled is withdrawn (its signal aborts)`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`task26-withdraw-${transport.name}`));
      try {
        const form = formLeftOpen(h.responders);
        await h.call('ext_ask_name');
        const key = await form.opened;
        await h.tracker.cancel(key);
        await h.until(key, (s) => s.phase === 'done', 'the task to end');
        assert.ok(form.withdrawn(), "the responder's signal aborted");
        assert.equal(h.tracker.get(key)?.task?.status, 'cancelled');
        const stats = await h.stats();
        assert.deepEqual(stats.tasks[h.tracker.get(key)!.task!.taskId]?.updates, [], 'nothing was answered');
      } finally {
        h.dispose();
      }
    });
  }

  const http = transports.find((t) => t.name === 'http')!;
  test('http: §Streamable HTTP: Routing Headers: tasks/get, tasks/update and tasks/cancel carry Mcp-Method and Mcp-Name = the task id (the server refuses them otherwise)', TIMEOUT, async () => {
    const h = await host2026(await http.def('task26-headers'));
    try {
      h.responders.elicitImpl = async () => ({ action: 'accept', content: { name: 'Ada' } });
      const asked = await h.call('ext_ask_name');
      await h.until(asked, (s) => s.phase === 'done', 'ext_ask_name to end');
      const counting = await h.call('ext_count', { steps: 100, stepMs: 100 });
      await h.tracker.cancel(counting);
      await h.until(counting, (s) => s.phase === 'done', 'ext_count to end');
      // One tasks/get of our own for each (polling may have been spared by notifications).
      for (const key of [asked, counting]) await wire2026_07_28.getTask(h.connection.client, h.tracker.get(key)!.task!.taskId, AbortSignal.timeout(10_000));
      const stats = await h.stats();
      const seen = [asked, counting].flatMap((key) => taskRequests(stats, h.tracker.get(key)!.task!.taskId));
      assert.deepEqual([...new Set(seen.map((r) => r.method))].sort(), ['tasks/cancel', 'tasks/get', 'tasks/update']);
      for (const r of seen) assert.deepEqual(r.headers, { protocolVersion: '2026-07-28', mcpMethod: r.method, mcpName: r.name }, JSON.stringify(r));
      assert.equal(h.tracker.get(asked)?.task?.status, 'completed');
      assert.equal(h.tracker.get(counting)?.task?.status, 'cancelled');
    } finally {
      h.dispose();
    }
  });
});
