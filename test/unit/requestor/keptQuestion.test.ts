/**
 * The open question of a sent 2025-11-25 task kept across a reload (src/core/requestor/keptQuestion.ts):
 * what is stored of it (bounded: its params left out beyond 64 KB, a long id not kept), how a
 * stored one is read back (bounded again), and why it is dropped after a reload that cannot take
 * the answer, with a typed reason the row says in words. Asked again and answered over a real
 * server: test/integration/requestor/questionReload.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_KEPT_QUESTION_CHARS } from '../../../src/core/config/limits.js';
import { storedForm } from '../../../src/core/requestor/keptQuestion.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { readStoredTasks, type TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import type { Continuity } from '../../../src/core/connection/connection.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { waitFor } from '../../helpers/host.js';
import { T0, storedTask } from '../../helpers/storedTasks.js';

class Memento implements TrackerStorage {
  value: unknown;
  load() {
    return this.value;
  }
  save(data: string) {
    this.value = data;
  }
}

const question = { id: 7, method: 'elicitation/create', params: { message: 'Which one?', requestedSchema: { type: 'object', properties: {} } } };

describe('what is kept of a question', () => {
  test('its id, method and params, with when it was asked', () => {
    assert.deepEqual(storedForm(question, 5), { ...question, askedAt: 5 });
    assert.deepEqual(storedForm({ ...question, id: 'abc' }, 5)?.id, 'abc');
  });

  test('params beyond the bound are left out; a long or odd id, or another method, is not kept', () => {
    const large = { message: 'x'.repeat(MAX_KEPT_QUESTION_CHARS), requestedSchema: {} };
    assert.deepEqual(storedForm({ ...question, params: large }, 5), { id: 7, method: 'elicitation/create', askedAt: 5 });
    assert.equal(storedForm({ ...question, id: 'i'.repeat(257) }, 5), undefined);
    assert.equal(storedForm({ ...question, id: 1.5 }, 5), undefined);
    assert.equal(storedForm({ ...question, method: 'roots/list' }, 5), undefined);
    assert.deepEqual(storedForm({ ...question, params: ['not', 'an', 'object'] }, 5), { id: 7, method: 'elicitation/create', askedAt: 5 });
  });

  test('read back from storage: a stored one larger than the bound (written by hand) loses its params, one of another method is dropped', () => {
    const ok = { ...storedTask(1, { phase: 'paused', sentAt: T0 }), openQuestion: { ...question, askedAt: T0 } };
    const large = { ...storedTask(2, { phase: 'paused', sentAt: T0 }), openQuestion: { ...question, params: { message: 'x'.repeat(MAX_KEPT_QUESTION_CHARS) }, askedAt: T0 } };
    const other = { ...storedTask(3, { phase: 'paused', sentAt: T0 }), openQuestion: { ...question, method: 'roots/list', askedAt: T0 } };
    const { tasks, dropped } = readStoredTasks(JSON.stringify({ version: 3, tasks: [ok, large, other] }));
    assert.equal(dropped, 1);
    assert.deepEqual(tasks[0]!.openQuestion, ok.openQuestion);
    assert.deepEqual(tasks[1]!.openQuestion, { id: 7, method: 'elicitation/create', askedAt: T0 });
  });
});

describe('after a reload that cannot take the answer, the question is dropped with its reason', () => {
  /** A task of `server`, input_required, with `kept` open when the window reloads; the next window's tracker, resumed on `continuity`. */
  async function reloaded(kept: typeof question | Omit<typeof question, 'params'>, continuity: Continuity, setup?: (connection: ReturnType<FakeTaskServer['connection']>) => void) {
    const storage = new Memento();
    const server = new FakeTaskServer();
    server.pollInterval = 10;
    const connection = server.connection(definition('everything'));
    const first = new TaskTracker({ connectionFor: () => connection, storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
    const key = await first.callTool(connection, { name: 'research', execution: { taskSupport: 'required' } }, { topic: 'a' });
    server.set('t1', 'input_required');
    await waitFor(first.onDidChange, () => first.get(key)?.task?.status === 'input_required', 'input_required');
    const sent = first._task(key)!;
    sent.record.openQuestion = { ...(kept as typeof question), method: 'elicitation/create', askedAt: T0 };
    sent.changed();
    await first.flush();
    first.dispose();
    const second = new TaskTracker({ connectionFor: () => connection, storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
    assert.deepEqual(second._task(key)?.record.openQuestion?.id, 7, 'kept across the reload');
    Object.assign(connection, { continuity });
    setup?.(connection);
    await second.onServerRunning(connection);
    return { second, key, server, dispose: () => (second.dispose(), server.dispose()) };
  }

  test('a new session: typed new-session, and the row says the server went on without the answer', async () => {
    const { second, key, dispose } = await reloaded(question, { kind: 'new-session', detail: 'HTTP 404' });
    try {
      const s = second.get(key)!;
      assert.deepEqual(s.questionDropped, { kind: 'new-session', method: 'elicitation/create', detail: 'HTTP 404' });
      assert.match(s.reason ?? '', /"everything" went on without your answer to its question: it is in a new session \(HTTP 404\), and the question belonged to the old one\./);
      assert.equal(second._task(key)!.record.openQuestion, undefined, 'no longer kept');
    } finally {
      dispose();
    }
  });

  test('the same session, but its params were not kept: typed not-kept', async () => {
    const { params: _p, ...bare } = question;
    const { second, key, dispose } = await reloaded(bare, { kind: 'resumed' });
    try {
      assert.equal(second.get(key)!.questionDropped?.kind, 'not-kept');
      assert.match(second.get(key)!.reason ?? '', /larger than this host keeps across a reload \(64 KB\)/);
    } finally {
      dispose();
    }
  });

  test('the same session, but this window has no receiver to ask it: typed cannot-ask', async () => {
    const { second, key, dispose } = await reloaded(question, { kind: 'resumed' });
    try {
      assert.equal(second.get(key)!.questionDropped?.kind, 'cannot-ask');
    } finally {
      dispose();
    }
  });

  /** A receiver side that asks `answer` for each kept question (the real one: test/integration/requestor/questionReload.test.ts). */
  function withReceiver(answer: (signal: AbortSignal) => Promise<unknown>, send: (message: unknown) => Promise<void>) {
    const asked: AbortSignal[] = [];
    const setup = (connection: ReturnType<FakeTaskServer['connection']>) => {
      const receiver = { kind: 'receiver', answerKept: (q: { id: unknown }, _call: unknown, signal: AbortSignal) => (asked.push(signal), answer(signal).then((result) => ({ jsonrpc: '2.0', id: q.id, result }))) };
      Object.assign(connection, { sides: [receiver] });
      Object.assign(connection.client, { transport: { send } });
    };
    return { asked, setup };
  }

  test('the server stopped waiting (its task left input_required) while the question is shown again: withdrawn, typed server-went-on', async () => {
    const receiver = withReceiver((signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })), async () => undefined);
    const { second, key, server, dispose } = await reloaded(question, { kind: 'resumed' }, receiver.setup);
    try {
      assert.equal(receiver.asked.length, 1, 'asked again');
      server.set('t1', 'working');
      await waitFor(second.onDidChange, () => second.get(key)?.questionDropped !== undefined, 'dropped');
      assert.deepEqual(second.get(key)!.questionDropped, { kind: 'server-went-on', method: 'elicitation/create', detail: "its task is now 'working'" });
      assert.ok(receiver.asked[0]!.aborted, 'the question shown is withdrawn');
    } finally {
      dispose();
    }
  });

  test('answered: the answer is sent on the session as the response to the id the server gave it, and the question is no longer kept', async () => {
    const sent: unknown[] = [];
    const receiver = withReceiver(async () => ({ action: 'accept', content: { a: 'b' } }), async (m) => void sent.push(m));
    const { second, key, dispose } = await reloaded(question, { kind: 'resumed' }, receiver.setup);
    try {
      await waitFor(second.onDidChange, () => second._task(key)?.record.openQuestion === undefined, 'answered');
      assert.deepEqual(sent, [{ jsonrpc: '2.0', id: 7, result: { action: 'accept', content: { a: 'b' } } }]);
      assert.equal(second.get(key)!.questionDropped, undefined);
    } finally {
      dispose();
    }
  });

  test('answered, but the answer cannot be sent: typed answer-not-sent', async () => {
    const receiver = withReceiver(async () => ({ action: 'decline' }), async () => {
      throw new Error('HTTP 404: Session not found');
    });
    const { second, key, dispose } = await reloaded(question, { kind: 'resumed' }, receiver.setup);
    try {
      await waitFor(second.onDidChange, () => second.get(key)?.questionDropped !== undefined, 'dropped');
      assert.deepEqual(second.get(key)!.questionDropped, { kind: 'answer-not-sent', method: 'elicitation/create', detail: 'HTTP 404: Session not found' });
      assert.match(second.get(key)!.reason ?? '', /the answer could not be sent \(HTTP 404: Session not found\)/);
    } finally {
      dispose();
    }
  });
});
