/**
 * The causal tree against a real third-party server: the official "everything" server
 * (`@modelcontextprotocol/server-everything`, from node_modules) over stdio and Streamable HTTP.
 * A received request belongs to the sent call that caused it (core/view/causal.ts): it carries
 * the view's `parentId`, counts once in the status bar, and is settled when that call ends.
 *
 * Run: `node --import tsx --test test/integration/view/causal.test.ts`
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { TaskView, type TaskViewItem } from '../../../src/core/view/taskView.js';
import { ROOT, httpDefinition, makeHost, stdioDefinition, textOf, waitFor } from '../../helpers/host.js';
import { everythingEntry, startEverythingHttp } from '../../helpers/everything.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const WAIT_MS = 30_000;
const ENTRY = everythingEntry(ROOT);
/** The bundled demo server (`node esbuild.mjs`): its ask_model task sends a task-augmented sampling request naming the task. */
const DEMO = join(ROOT, 'dist', 'demo-server.js');

let httpServer: { url: string; child: ChildProcess } | undefined;
before(async () => {
  httpServer = await startEverythingHttp(ENTRY, WAIT_MS);
});
after(() => {
  httpServer?.child.kill();
});

async function connect(transport: 'stdio' | 'http' | 'demo') {
  const def =
    transport === 'demo'
      ? stdioDefinition('demo', process.execPath, [DEMO])
      : transport === 'stdio'
        ? stdioDefinition('everything', process.execPath, [ENTRY, 'stdio'])
        : httpDefinition('everything', httpServer!.url);
  const host = makeHost(def);
  const tracker = new TaskTracker({ connectionFor: (id) => (id === host.connection.id ? host.connection : undefined), minPollIntervalMs: 10 });
  const view = new TaskView(host.ledger, tracker, { coalesceMs: 0 });
  await host.connection.start();
  assert.equal(host.connection.state.kind, 'running', JSON.stringify(host.connection.state));
  const { tools } = await host.connection.client.listTools();
  const tool = (name: string): Tool => {
    const t = tools.find((x) => x.name === name);
    assert.ok(t, `the everything server offers ${name} to a task-capable client: ${tools.map((x) => x.name).join(', ')}`);
    return t;
  };
  const changed = (check: () => boolean, what: string) => waitFor(view.onDidChange, check, what, WAIT_MS);
  return {
    ...host,
    tracker,
    view,
    tool,
    changed,
    /** Starts a call without waiting for it (a plain call's promise settles only at its end). */
    start(name: string, args: Record<string, unknown>): { sent: () => TaskViewItem | undefined; done: Promise<string> } {
      const before = new Set(view.items().map((i) => i.id));
      const done = tracker.callTool(host.connection, tool(name), args);
      return { sent: () => view.items().find((i) => i.direction === 'sent' && i.title === name && !before.has(i.id)), done };
    },
    received: (parent: TaskViewItem | undefined) => view.items().filter((i) => i.direction === 'received' && parent !== undefined && i.parentId === parent.id),
    close() {
      view.dispose();
      tracker.dispose();
      host.dispose();
    },
  };
}

for (const transport of ['stdio', 'http'] as const) {
  describe(`causal tree against the everything server (${transport})`, { timeout: 120_000 }, () => {
    test('trigger-sampling-request-async: the received sampling task nests under the plain call that caused it and counts once', async () => {
      const h = await connect(transport);
      try {
        let release!: () => void;
        const answered = new Promise<void>((r) => (release = r));
        h.responders.sampleImpl = async (p, ctx) => {
          ctx.setWaitingForUser(true);
          await answered;
          return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'forty-two' }, stopReason: 'endTurn' };
        };
        const call = h.start('trigger-sampling-request-async', { prompt: 'six times seven', maxTokens: 20 });
        await h.changed(() => h.received(call.sent()).some((i) => i.state === 'waitingForUser'), 'the sampling task to wait under its call');
        const parent = call.sent()!;
        assert.equal(parent.mode, 'plain', 'the everything server registers it as a plain tool');
        const [child] = h.received(parent);
        assert.equal(child!.title, 'Sampling');
        // Counted once: one active unit, waiting for the user.
        assert.deepEqual({ active: h.view.counts().active, waiting: h.view.counts().waiting }, { active: 1, waiting: 1 });
        release();
        await call.done;
        await h.changed(() => call.sent()?.state === 'completed', 'the call to complete');
        assert.match(textOf((call.sent()!.outcome as { result: unknown }).result), /\[COMPLETED\][\s\S]*forty-two/);
        assert.equal(h.view.item(child!.id)!.state, 'completed');
        assert.equal(h.view.item(child!.id)!.parentId, parent.id, 'stays under its call');
        assert.equal(h.view.counts().active, 0);
      } finally {
        h.close();
      }
    });

    test('cancelling the plain call settles the sampling request it caused: "cancelled", never counted as an orphan', async () => {
      const h = await connect(transport);
      try {
        h.responders.sampleImpl = (_p, ctx) => {
          ctx.setWaitingForUser(true);
          return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        };
        const call = h.start('trigger-sampling-request-async', { prompt: 'never answered' });
        await h.changed(() => h.received(call.sent()).some((i) => i.state === 'waitingForUser'), 'the sampling task to wait under its call');
        const parent = call.sent()!;
        const [child] = h.received(parent);
        const signal = h.responders.calls.at(-1)!.ctx.signal;
        await h.tracker.cancel(parent.id.slice('sent:'.length));
        await call.done;
        await h.changed(() => h.view.item(child!.id)?.state === 'cancelled' && call.sent()?.state === 'cancelled', 'both to be cancelled');
        assert.equal(call.sent()!.detail, undefined, 'no "failed: cancelled by the user"');
        assert.ok(signal.aborted, 'the prompt of the request was closed (its work aborted)');
        assert.match(h.view.item(child!.id)!.task?.statusMessage ?? '', /trigger-sampling-request-async" it was asked for was cancelled/);
        assert.deepEqual({ active: h.view.counts().active, waiting: h.view.counts().waiting }, { active: 0, waiting: 0 });
      } finally {
        h.close();
      }
    });

    test('trigger-elicitation-request-async: the received elicitation task nests under its call and completes', async () => {
      const h = await connect(transport);
      try {
        h.responders.elicitImpl = async () => ({ action: 'accept', content: { name: 'Ada', favoriteColor: 'Blue', agreeToTerms: true } });
        const call = h.start('trigger-elicitation-request-async', {});
        await call.done;
        await h.changed(() => call.sent()?.state === 'completed', 'the call to complete');
        const [child] = h.received(call.sent());
        assert.ok(child, `the elicitation nests under its call: ${JSON.stringify(h.view.items().map((i) => [i.id, i.parentId]))}`);
        assert.match(child.title, /^Elicitation: /);
        assert.equal(child.state, 'completed');
        assert.match(textOf((call.sent()!.outcome as { result: unknown }).result), /Ada/);
      } finally {
        h.close();
      }
    });

    test('simulate-research-query (a task tool): its input request arrives through tasks/result naming the task, and the task completes', async () => {
      const h = await connect(transport);
      try {
        h.responders.elicitImpl = async () => ({ action: 'accept', content: { interpretation: 'technical' } });
        const call = h.start('simulate-research-query', { topic: 'tasks', ambiguous: true });
        await call.done;
        assert.equal(call.sent()!.mode, 'task');
        await h.changed(() => call.sent()?.state === 'completed' && !!call.sent()?.outcome, 'the research task to complete');
        const elicitation = h.responders.calls.find((c) => c.kind === 'elicitation');
        assert.equal(elicitation?.ctx.relatedTaskId, call.sent()!.taskId, 'the request names the sent task (R-RESULT-4, R-META-1)');
        assert.match(textOf((call.sent()!.outcome as { result: unknown }).result), /technical/);
      } finally {
        h.close();
      }
    });
  });
}

describe('causal tree: a request whose owner cannot be told', { timeout: 120_000 }, () => {
  test('a sampling request that names no call while two plain calls are in flight is ambiguous: said in the log, shown on its own, not linked', async () => {
    const h = await connect('stdio');
    try {
      let release!: () => void;
      const answered = new Promise<void>((r) => (release = r));
      h.responders.sampleImpl = async (_p, ctx) => {
        ctx.setWaitingForUser(true);
        await answered;
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'forty-two' }, stopReason: 'endTurn' };
      };
      const first = h.start('trigger-sampling-request-async', { prompt: 'first', maxTokens: 20 });
      await h.changed(() => h.received(first.sent()).length === 1, 'the first sampling task under its call (the only call in flight)');
      const firstKey = first.sent()!.id.slice('sent:'.length);
      const second = h.start('trigger-sampling-request-async', { prompt: 'second', maxTokens: 20 });
      await h.changed(() => h.responders.calls.length === 2 && h.view.items().filter((i) => i.direction === 'received').length === 2, 'the second sampling task');
      const serverId = h.connection.id;
      const [firstTask, secondTask] = h.responders.calls.map((c) => `${serverId}/${c.ctx.taskId}`);
      assert.deepEqual(h.view.links.ownerOf('received', firstTask!), { kind: 'sole-plain-call', key: firstKey });
      assert.deepEqual(h.view.links.ownerOf('received', secondTask!), { kind: 'ambiguous', inFlight: 2 }, 'two calls in flight: not guessed');
      assert.equal(h.view.item(`received:${secondTask}`)?.parentId, undefined, 'shown on its own, under no call');
      assert.ok(h.log.lines.some((l) => /sampling\/createMessage task .* 2 calls were in flight: which one it serves cannot be told/.test(l)), `said in the server's log: ${h.log.lines.join('\n')}`);
      release();
      await Promise.all([first.done, second.done]);
    } finally {
      h.close();
    }
  });
});

describe('causal tree: a request that names its task (related-task metadata)', { timeout: 60_000 }, () => {
  test('the demo server\'s ask_model task: its sampling task nests under it, counts once, and is cancelled when the task is', async () => {
    const h = await connect('demo');
    try {
      h.responders.sampleImpl = (_p, ctx) => {
        ctx.setWaitingForUser(true);
        return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      };
      const call = h.start('ask_model', { prompt: 'never answered' });
      await call.done;
      assert.equal(call.sent()!.mode, 'task');
      await h.changed(() => h.received(call.sent()).some((i) => i.state === 'waitingForUser'), 'the sampling task to wait under the ask_model task');
      const [child] = h.received(call.sent());
      assert.equal(h.responders.calls.at(-1)!.ctx.relatedTaskId, call.sent()!.taskId);
      assert.deepEqual({ active: h.view.counts().active, waiting: h.view.counts().waiting }, { active: 1, waiting: 1 });
      await h.tracker.cancel(call.sent()!.id.slice('sent:'.length));
      await h.changed(() => call.sent()?.state === 'cancelled' && h.view.item(child!.id)?.state === 'cancelled', 'the task and its request to be cancelled');
      // Settled either way: by this host (the call it was asked for ended) or by the demo server, which
      // cancels its own sampling task when its ask_model task is cancelled — whichever comes first.
      assert.match(h.view.item(child!.id)!.task?.statusMessage ?? '', /"ask_model" it was asked for was cancelled|Cancelled by server "demo" \(tasks\/cancel\)/);
      assert.equal(h.view.counts().active, 0);
    } finally {
      h.close();
    }
  });
});
