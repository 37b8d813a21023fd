/**
 * The 2026-07-28 Tasks extension rules on the requestor, against the demo server's Tasks
 * extension mode (examples/demo-server/tasksExtension.ts, `--tasks-extension`) over stdio. What
 * the server saw (tools/call declarations, tasks/get times and answers, tasks/update keys) is read
 * back through its `ext_stats` tool. Sections: modelcontextprotocol/experimental-ext-tasks
 * specification/draft/tasks.md. (The behaviours shared with 2025-11-25 run on both wires and both
 * transports in wires.test.ts.) Needs `node esbuild.mjs` first.
 */
import { describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { extTracker } from '../../helpers/extTasks.js';
import { MemoryLog, ROOT, ScriptedResponders, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const DEMO = resolve(ROOT, 'dist', 'demo-server.js');
const WAIT_MS = 20_000;
const TIMEOUT = { timeout: 60_000 };
const TASKS = 'io.modelcontextprotocol/tasks';

async function host(flag = '--tasks-extension') {
  const ledger = new TaskLedger({});
  const responders = new ScriptedResponders();
  const connection = new McpConnection(
    { id: 'ext', name: 'ext-server', source: { kind: 'user', file: 'test settings' }, transport: { type: 'stdio', command: process.execPath, args: [DEMO, flag], env: { DEMO_POLL_INTERVAL_MS: '100' } }, inputs: [] },
    { sides: hostSides(ledger, responders), log: new MemoryLog(), variables: { env: process.env, workspaceFolder: ROOT } },
  );
  await connection.start();
  return { connection, responders, ...extTracker(connection, ledger, WAIT_MS) };
}

describe('requestor: the 2026-07-28 Tasks extension', () => {
  test('§Capability Negotiation: the extension capability goes on every request (tools/call and tasks/get included)', TIMEOUT, async () => {
    const h = await host();
    try {
      const key = await h.call('ext_count', { steps: 2, stepMs: 50 });
      await h.until(key, (s) => s.phase === 'done', 'done');
      const stats = await h.stats();
      assert.ok(stats.toolCalls.length >= 2 && stats.toolCalls.every((c) => c.declared), JSON.stringify(stats.toolCalls));
      // tasks/get answers -32021 to a non-declaring client (§Error Handling): the task completed, so every poll declared it.
      assert.equal(h.tracker.get(key)?.task?.status, 'completed');
    } finally {
      h.dispose();
    }
  });

  test('§Polymorphic Results: a plain CallToolResult is accepted as well as a CreateTaskResult', TIMEOUT, async () => {
    const h = await host();
    try {
      const key = await h.call('ext_echo', { text: 'hi' });
      const s = h.tracker.get(key)!;
      assert.equal(s.phase, 'done');
      assert.equal(s.mode, 'plain', 'the server chose not to make a task');
      assert.equal(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), 'echo: hi');
    } finally {
      h.dispose();
    }
  });

  test('§Task Polling: tasks/get at the latest pollIntervalMs as it changes; the final result taken inline (no second fetch)', TIMEOUT, async () => {
    const h = await host();
    try {
      const key = await h.call('ext_count', { steps: 6, stepMs: 150, pollIntervalMs: 60, pollIntervalsMs: [250, 80, 200] });
      await h.until(key, (s) => s.phase === 'done', 'done');
      const s = h.tracker.get(key)!;
      const t = (await h.stats()).tasks[s.task!.taskId]!;
      assert.ok(t.gets.length >= 3, `polled ${t.gets.length} times`);
      for (let i = 1; i < t.gets.length; i++) {
        const gap = t.gets[i]! - t.gets[i - 1]!;
        const asked = t.getAnswers[i - 1]!.pollIntervalMs;
        assert.ok(gap >= asked - 5, `tasks/get ${i} came ${gap} ms after the previous one, whose answer asked for ${asked} ms`);
      }
      assert.equal(t.getAnswers.at(-1)?.status, 'completed', 'the last tasks/get carried the result');
      assert.equal(t.gets.length, s.polls, 'no tasks/get beyond the polls: the result came inline');
      assert.equal(s.resultFetches, 1);
      assert.equal(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), 'Counted to 6.');
    } finally {
      h.dispose();
    }
  });

  test('§Task Update Requests: an inputRequests key is presented once across polls and answered once with tasks/update', TIMEOUT, async () => {
    const h = await host();
    try {
      let key = '';
      h.responders.elicitImpl = async (params, ctx) => {
        assert.equal(params.message, 'Please enter your name.');
        assert.equal(ctx.sentTask?.inputKey, 'name');
        // Stay open across several polls that repeat the same request.
        await waitFor(h.tracker.onDidPoll, () => (h.tracker.get(key)?.polls ?? 0) >= 4, 'polls while the form is open', WAIT_MS);
        return { action: 'accept', content: { name: 'Luca' } };
      };
      key = await h.call('ext_ask_name');
      await h.until(key, (s) => s.phase === 'done', 'done');
      const s = h.tracker.get(key)!;
      const t = (await h.stats()).tasks[s.task!.taskId]!;
      assert.ok(t.getAnswers.filter((a) => a.status === 'input_required').length >= 3, 'the request came on several polls');
      assert.equal(h.responders.calls.filter((c) => c.kind === 'elicitation').length, 1, 'presented once');
      assert.deepEqual(t.updates, ['name'], 'answered once');
      assert.equal(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), 'Hello, Luca!');
    } finally {
      h.dispose();
    }
  });

  test('§Task Status Notifications: notifications/tasks are used when the server sends them', TIMEOUT, async () => {
    const h = await host();
    try {
      // A pollInterval of a minute: only the notification can tell the tracker the task completed.
      const key = await h.call('ext_count', { steps: 2, stepMs: 50, pollIntervalMs: 60_000, notify: true });
      await h.until(key, (s) => s.phase === 'done', 'done');
      const s = h.tracker.get(key)!;
      assert.equal(s.task?.status, 'completed');
      assert.equal(s.polls, 0, 'no tasks/get was needed');
      assert.equal(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), 'Counted to 2.');
    } finally {
      h.dispose();
    }
  });

  test('§Tasks: ttlMs null (unlimited) is kept as such and the task is never expired for it', TIMEOUT, async () => {
    const h = await host();
    try {
      const key = await h.call('ext_count', { steps: 2, stepMs: 50, ttlNull: true });
      assert.equal(h.tracker.get(key)?.task?.ttl, null);
      await h.until(key, (s) => s.phase === 'done' || s.phase === 'expired', 'finished');
      assert.equal(h.tracker.get(key)?.phase, 'done');
    } finally {
      h.dispose();
    }
  });

  test('§Capability Negotiation: -32021 becomes a clear message naming the server and the capability', TIMEOUT, async () => {
    const h = await host('--tasks-extension-undeclared');
    try {
      const key = await h.call('ext_count', { steps: 2, stepMs: 50 });
      const s = h.tracker.get(key)!;
      assert.equal(s.phase, 'done');
      assert.equal(s.outcome?.kind === 'error' ? s.outcome.code : undefined, -32021);
      assert.match(s.reason ?? '', /"ext-server" requires the client capability "io\.modelcontextprotocol\/tasks"/);
      assert.match(s.reason ?? '', /did not declare the extension/);
      assert.ok(s.reason?.includes(TASKS));
    } finally {
      h.dispose();
    }
  });
});

describe('requestor: the 2026-07-28 Tasks extension, many inputRequests at once', () => {
  test('§Task Update Requests: at most a few forms of one task open at once; every key answered once, partial answers accepted', TIMEOUT, async () => {
    const h = await host();
    try {
      let open = 0;
      let most = 0;
      h.responders.elicitImpl = async (params) => {
        open++;
        most = Math.max(most, open);
        // Held for a turn of the event loop: forms presented together overlap, so an unbounded fan-out shows.
        await new Promise((r) => setImmediate(r));
        open--;
        return { action: 'accept', content: { name: String(params.message).replace(/^.*\((.*)\).*$/, '$1') } };
      };
      const key = await h.call('ext_ask_name', { count: 10 });
      await h.until(key, (s) => s.phase === 'done', 'done');
      const s = h.tracker.get(key)!;
      const t = (await h.stats()).tasks[s.task!.taskId]!;
      assert.equal(h.responders.calls.length, 10, 'each key presented once');
      assert.ok(most <= 4, `at most 4 open at once (saw ${most})`);
      assert.deepEqual([...t.updates].sort(), Array.from({ length: 10 }, (_, i) => `name-${i}`).sort(), 'each key answered once');
      assert.equal(s.task?.status, 'completed');
    } finally {
      h.dispose();
    }
  });
});
