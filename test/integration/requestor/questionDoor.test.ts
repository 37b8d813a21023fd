/**
 * The one door a server's questions come through (receiver/questionDoor.ts), against real SDK v2
 * servers speaking MCP 2026-07-28 over stdio:
 * - one `input_required` round of 400 elicitations (the inputRequests2026 fixture answers its
 *   `ask` tool with whatever round it is given) is charged as one to the server's budget and
 *   refused whole: the call fails with a reason naming the server and the setting, no form opens,
 *   and the next, smaller round of the same server is answered;
 * - a Tasks-extension task the user cancelled, whose server does not confirm the cancel and keeps
 *   asking (the demo server's `ext_ask_name {ignoreCancel}`), gets no further question shown, and
 *   can be removed;
 * - a 2025-11-25 task (the requestor fixture's `confirm`, over stdio) whose server asks on its
 *   tasks/result stream and never withdraws the question: cancelling the task withdraws it here.
 * Needs `node esbuild.mjs` first.
 */
import { describe, test } from 'node:test';
import { receiverOf } from '../../../src/core/receiver/wire/receiverOf.js';
import assert from 'node:assert/strict';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { fixture, makeHost, stdioDefinition, textOf } from '../../helpers/host.js';
import { host2026, stdio2026 } from '../../helpers/rev2026.js';
import { checkLeaks } from '../../helpers/leaks.js';

const TIMEOUT = { timeout: 60_000 };
const FORM = { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
const elicitations = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { method: 'elicitation/create', params: FORM }]));

describe('one door for every question', () => {
  checkLeaks();

  test('an input_required round of 400 questions is refused as one: the call fails with the reason, no form opens', TIMEOUT, async () => {
    const h = makeHost(stdioDefinition('rounds-2026', process.execPath, [fixture('inputRequests2026')]), { maxLiveTasksPerServer: 32 });
    const tracker = new TaskTracker({ connectionFor: () => h.connection, minPollIntervalMs: 10 });
    try {
    await h.connection.start();
    const key = await tracker.callTool(h.connection, { name: 'ask' }, { requests: elicitations(400) });
    const s = tracker.get(key)!;
    assert.equal(s.phase, 'done');
    assert.equal(h.responders.calls.length, 0, 'no form was opened for any of the 400');
    const said = s.outcome?.kind === 'error' ? s.outcome.message : JSON.stringify(s.outcome);
    assert.match(said, /Too many questions in one input_required round \(400\): server "rounds-2026"/);
    assert.match(said, /setting mcpTasks\.receiver\.maxLiveTasksPerServer/);
    assert.equal(h.tasks.openRequestCount, 0, 'nothing of the refused round is held');
    // The server is not punished for it beyond that call: a round that fits is answered.
    const ok = await tracker.callTool(h.connection, { name: 'ask' }, { requests: elicitations(3) });
    assert.equal(h.responders.calls.length, 3);
    assert.ok(h.responders.calls.every((c) => c.ctx.owner.kind === 'round' && c.ctx.sentTask?.key === ok), 'each question is owned by its round of the call');
    const answered = tracker.get(ok)!;
    assert.equal(answered.outcome?.kind, 'result');
    assert.match(answered.outcome?.kind === 'result' ? textOf(answered.outcome.result) : '', /"q2":\{"action":"accept"/);
    assert.equal(h.tasks.openRequestCount, 0, 'the round let its budget go once answered');
    } finally {
      tracker.dispose();
      h.dispose();
    }
  });

  test('a task the user cancelled gets no more questions shown though its server keeps asking, and can be removed', TIMEOUT, async () => {
    const h = await host2026(stdio2026('keeps-asking-2026'));
    try {
      // Each form stays open until it is withdrawn.
      const withdrawn: string[] = [];
      let opened!: () => void;
      const firstOpened = new Promise<void>((resolve) => (opened = resolve));
      h.responders.elicitImpl = (_p, ctx) =>
        new Promise((_resolve, reject) => {
          opened();
          ctx.signal.addEventListener(
            'abort',
            () => {
              withdrawn.push(ctx.sentTask?.inputKey ?? '?');
              reject(new Error('withdrawn'));
            },
            { once: true },
          );
        });
      const key = await h.call('ext_ask_name', { keepAsking: true });
      await firstOpened;
      await h.tracker.cancel(key);
      assert.deepEqual(withdrawn, ['name'], 'the open question is withdrawn at once');
      // The server ignored the cancel: the task is still input_required and asks again on every poll.
      const polls = h.tracker.get(key)!.polls;
      await h.until(key, (s) => s.polls >= polls + 4, 'four more polls of the cancelled task');
      const taskId = h.tracker.get(key)!.task!.taskId;
      const seen = (await h.stats()).tasks[taskId]!;
      assert.equal(seen.cancels, 1);
      assert.equal(seen.status, 'input_required', 'the server never confirmed the cancel');
      assert.equal(h.responders.calls.length, 1, 'none of its later questions reached the user');
      assert.equal(h.tasks.openRequestCount, 0, 'nothing is held for it');
      // Removed here though the server never confirmed.
      h.tracker.remove(key);
      assert.equal(h.tracker.get(key), undefined);
      assert.equal(h.responders.calls[0]!.ctx.owner?.kind, 'task-input', 'the question was owned by its task when it arrived');
    } finally {
      h.dispose();
    }
  });

  test('2025-11-25: a question asked on a task\'s tasks/result stream is withdrawn when the user cancels the task, though its server never withdraws it', TIMEOUT, async () => {
    const h = makeHost(stdioDefinition('confirm-2025', process.execPath, [fixture('requestorServer')]));
    const tracker = new TaskTracker({ connectionFor: () => h.connection, minPollIntervalMs: 10, defaultPollIntervalMs: 50 });
    try {
      await h.connection.start();
      let opened!: () => void;
      const asked = new Promise<void>((resolve) => (opened = resolve));
      let withdrawn!: () => void;
      const gone = new Promise<void>((resolve) => (withdrawn = resolve));
      // The form stays open until it is withdrawn (the user is away).
      h.responders.elicitImpl = (_p, ctx) =>
        new Promise((_resolve, reject) => {
          opened();
          ctx.signal.addEventListener('abort', () => (withdrawn(), reject(new Error('withdrawn'))), { once: true });
        });
      const key = await tracker.callTool(h.connection, { name: 'confirm', execution: { taskSupport: 'required' } }, {});
      await asked;
      const question = h.responders.calls[0]!.ctx;
      assert.equal(question.relatedTaskId, tracker.get(key)!.task!.taskId, 'the question names the task it is asked for');
      assert.equal(question.signal.aborted, false);
      await tracker.cancel(key);
      // The fixture's elicitation waits 120 s and is never cancelled by the server: only the host withdraws it.
      await gone;
      assert.equal(question.signal.aborted, true);
      assert.equal(receiverOf(h.connection)!.tasks.openRequestCount, 0, 'nothing is held for it');
    } finally {
      tracker.dispose();
      h.dispose();
    }
  });
});
