/**
 * A `tasks/result` stream cut by a reload is resumed with `Last-Event-ID` in the same Streamable
 * HTTP session, against a real SDK server (the requestor fixture, test/fixtures/requestorServer.ts)
 * over loopback HTTP, 2025-11-25, with an event store (test/fixtures/eventStore.ts). Its `confirm`
 * tool goes `input_required` and asks on the `tasks/result` stream, then completes shortly after the
 * answer.
 *
 * "Reload": the first window's tracker and connection are disposed after the question arrived (the
 * session stays open on the server); a second window over the same stored tasks and kept sessions
 * answers the kept question again (keptQuestion.ts) and resumes the cut stream:
 * - with the event store: the server sees a GET carrying the last event id the first window
 *   recorded, and the result arrives on that stream: no second `tasks/result` goes out;
 * - when the server no longer knows the event id (its store forgot it: the resume is answered 400):
 *   a new `tasks/result` goes out, logged, and the result is delivered all the same;
 * - a server without an event store numbers no events: nothing is kept, a new `tasks/result` goes out;
 * - a server that accepts the resume but sends nothing on it (the stream ends empty, or stays open
 *   and silent until the task ended and one poll interval passed): a new `tasks/result` goes out.
 * Waits are on state, never on sleeps.
 *
 * Run: `node --import tsx --test test/integration/requestor/resultStreamResume.test.ts`
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import type { SessionStore } from '../../../src/core/connection/httpSession.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { Emitter, type Event } from '../../../src/core/base/event.js';
import { serveRequestorHttp } from '../../fixtures/requestorServer.js';
import { ScriptedResponders, httpDefinition, waitFor } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { MemoryStorage, reloadWindow, untilTask, type ReloadWindow } from '../../helpers/reloadWindow.js';
import { checkLeaks } from '../../helpers/leaks.js';

checkLeaks();

const WAIT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;

/** Responders that note each elicitation they are given, answering it with `answer` (or never). */
class NotingResponders extends ScriptedResponders {
  private readonly _asked = new Emitter<void>();
  readonly onAsked: Event<void> = this._asked.event;
  asked = 0;
  constructor(answers: boolean) {
    super();
    this.elicitImpl = (_p, ctx) => {
      this.asked++;
      this._asked.fire();
      if (answers) return Promise.resolve({ action: 'accept', content: { ok: true } });
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
    };
  }
  dispose(): void {
    this._asked.dispose();
  }
}

function windowOf(def: ServerDefinition, sessions: SessionStore, storage: TrackerStorage, responders: NotingResponders) {
  return reloadWindow(def, { sessions, storage, responders, defaultPollIntervalMs: 100 });
}

function until(tracker: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string): Promise<SentTaskSnapshot> {
  return untilTask(tracker, key, check, what, WAIT_MS);
}

function resultText(s: SentTaskSnapshot): string {
  const result = s.outcome?.kind === 'result' ? (s.outcome.result as { content?: Array<{ text?: string }> }) : undefined;
  return (result?.content ?? []).map((c) => c.text ?? '').join('\n');
}

function storedStream(storage: MemoryStorage): string | undefined {
  return (JSON.parse(storage.data as string) as { tasks: Array<{ resultStream?: { eventId: string } }> }).tasks[0]?.resultStream?.eventId;
}

/** Window 1 calls `confirm` as a task, sees its question on the tasks/result stream, leaves it unanswered, and reloads. */
async function askThenReload(def: ServerDefinition, sessions: MemorySessions, storage: MemoryStorage): Promise<{ key: string; taskId: string }> {
  const responders = new NotingResponders(false);
  const first = windowOf(def, sessions, storage, responders);
  try {
    await first.connection.start();
    const { tools } = await first.connection.client.listTools();
    const confirm = tools.find((t): t is Tool => t.name === 'confirm');
    assert.ok(confirm);
    const key = await first.tracker.callTool(first.connection, confirm, { finishAfterMs: 200 });
    await waitFor(responders.onAsked, () => responders.asked === 1, 'the question, on the tasks/result stream', WAIT_MS);
    const s = await until(first.tracker, key, (t) => t.task?.status === 'input_required', 'input_required');
    return { key, taskId: s.task!.taskId };
  } finally {
    first.close();
  }
}

/**
 * Window 2 opens the session window 1 kept, takes the stored task back and waits for it to end; it
 * must end answered. `open` holds it from the start, so the test closes it whatever failed.
 */
async function reopenUntilAnswered(open: Set<ReloadWindow>, def: ServerDefinition, sessions: MemorySessions, storage: MemoryStorage, key: string, resumes: readonly string[]): Promise<{ second: ReloadWindow; done: SentTaskSnapshot }> {
  const second = windowOf(def, sessions, storage, new NotingResponders(true));
  open.add(second);
  await second.connection.start();
  assert.equal(second.connection.continuity.kind, 'resumed', 'the same session');
  await second.tracker.onServerRunning(second.connection);
  const done = await until(second.tracker, key, (s) => s.phase === 'done' || s.phase === 'error' || s.phase === 'expired', 'the task, answered').catch((e: unknown) => {
    throw new Error(`${String(e)}; resumes ${JSON.stringify(resumes)}; log:\n${second.log.lines.join('\n')}`);
  });
  assert.equal(done.phase, 'done', `${done.phase}: ${done.reason}`);
  assert.match(resultText(done), /confirmed: .*"ok":true/, 'the result of the answered question');
  return { second, done };
}

test('a tasks/result stream cut by a reload is resumed with Last-Event-ID in the same session: the result arrives without a second tasks/result', { timeout: TEST_TIMEOUT_MS }, async () => {
  const server = await serveRequestorHttp({ eventStore: true });
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('fixture', server.url);
  const open = new Set<ReloadWindow>();
  try {
    const { key, taskId } = await askThenReload(def, sessions, storage);
    const token = storedStream(storage);
    assert.ok(token, 'the last event id of the open result stream is kept with the task');
    assert.equal(server.state.tasks.get(taskId)!.results, 1);

    const { second, done } = await reopenUntilAnswered(open, def, sessions, storage, key, server.resumes);
    assert.equal(done.outcome?.kind, 'result');
    assert.deepEqual(server.resumes, [token], 'the server saw one GET carrying the kept Last-Event-ID');
    assert.equal(server.state.tasks.get(taskId)!.results, 1, 'no second tasks/result: the result came on the resumed stream');
    second.close(); // saves
    open.delete(second);
    assert.equal(storedStream(storage), undefined, 'no stream kept once the result arrived');
  } finally {
    for (const w of open) w.close();
    await server.close();
  }
});

test('a resume the server refuses (it no longer knows the event id) falls back to a new tasks/result: the result is delivered, logged, no error', { timeout: TEST_TIMEOUT_MS }, async () => {
  const server = await serveRequestorHttp({ eventStore: true });
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('fixture', server.url);
  const open = new Set<ReloadWindow>();
  try {
    const { key, taskId } = await askThenReload(def, sessions, storage);
    const token = storedStream(storage);
    assert.ok(token);
    server.forgetEvents();

    const { second } = await reopenUntilAnswered(open, def, sessions, storage, key, server.resumes);
    assert.equal(server.resumes[0], token, 'the resume was tried');
    assert.equal(server.state.tasks.get(taskId)!.results, 2, 'then a new tasks/result');
    assert.match(second.log.lines.join('\n'), /could not be resumed \(the server answered the resume 400/);
  } finally {
    for (const w of open) w.close();
    await server.close();
  }
});

test('a server without an event store gives no event ids: nothing is kept to resume, and after a reload a new tasks/result delivers the result', { timeout: TEST_TIMEOUT_MS }, async () => {
  const server = await serveRequestorHttp();
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('fixture', server.url);
  const open = new Set<ReloadWindow>();
  try {
    const { key, taskId } = await askThenReload(def, sessions, storage);
    assert.equal(storedStream(storage), undefined, 'no event id to keep');
    await reopenUntilAnswered(open, def, sessions, storage, key, server.resumes);
    assert.deepEqual(server.resumes, [], 'no resume tried');
    assert.equal(server.state.tasks.get(taskId)!.results, 2, 'a new tasks/result');
  } finally {
    for (const w of open) w.close();
    await server.close();
  }
});

// A server that accepts the resume (an event stream) but has nothing on it for the request: the
// host must not wait on it forever. `close`: the stream ends empty, and the host asks again at once;
// `silent`: the stream stays open, and once a poll sees the task ended the stream gets one poll
// interval on the task's clock (taskDrive.ts `_boundResume`), then a new tasks/result asks for it.
for (const [answer, logged] of [
  ['close', /could not be resumed \(the resumed stream ended without the result\)/],
  ['silent', /could not be resumed \(the task ended and the resumed stream carried no result within \d+ ms\)/],
] as const) {
  test(`a resume the server accepts but answers with an event stream that ${answer === 'close' ? 'ends empty' : 'stays open and silent'} falls back to a new tasks/result: the task is not left waiting`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const server = await serveRequestorHttp({ eventStore: true, resumeAnswer: answer });
    const sessions = new MemorySessions();
    const storage = new MemoryStorage();
    const def = httpDefinition('fixture', server.url);
    const open = new Set<ReloadWindow>();
    try {
      const { key, taskId } = await askThenReload(def, sessions, storage);
      const token = storedStream(storage);
      assert.ok(token);

      const { second } = await reopenUntilAnswered(open, def, sessions, storage, key, server.resumes);
      assert.deepEqual(server.resumes, [token], 'the resume was tried once (its cancellation sends no second GET)');
      assert.equal(server.state.tasks.get(taskId)!.results, 2, 'then a new tasks/result');
      assert.match(second.log.lines.join('\n'), logged);
    } finally {
      for (const w of open) w.close();
      await server.close();
    }
  });
}
