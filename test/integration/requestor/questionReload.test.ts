/**
 * A question the server asked before a reload is asked again after it, and answered in the same
 * session — against the official everything server (`@modelcontextprotocol/server-everything`, an
 * SDK v1 server) over real Streamable HTTP, 2025-11-25. Its `simulate-research-query` tool, called
 * as a task with `ambiguous: true`, goes `input_required` and sends an `elicitation/create` (its
 * related-task metadata naming the task) on the `tasks/result` stream, then waits up to 60 s for
 * the answer and otherwise goes on with a default interpretation.
 *
 * "Reload": the tracker and the connection of the first window are disposed (the session is left
 * open on the server) and a second window is built over the same stored tasks and kept sessions.
 * - Same session: the question is shown again, under its task; the answer goes back as the JSON-RPC
 *   response to the server's request id, POSTed in the same session, and the report the task ends
 *   with names the interpretation answered, not the default.
 * - The session is replaced (the server no longer has the kept one): the question is not shown,
 *   and the row says, with a typed reason, that the server went on without the answer.
 * Waits are on state, never on sleeps.
 *
 * Run: `node --import tsx --test test/integration/requestor/questionReload.test.ts`
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { type SavedSession, type SessionStore } from '../../../src/core/connection/httpSession.js';
import type { ResponderContext } from '../../../src/core/receiver/wire/responders.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { Emitter, type Event } from '../../../src/core/base/event.js';
import { everythingEntry, startEverythingHttp } from '../../helpers/everything.js';
import { ROOT, ScriptedResponders, httpDefinition, waitFor } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { MemoryStorage, reloadWindow, untilTask } from '../../helpers/reloadWindow.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const ENTRY = everythingEntry(ROOT);
/** Failure guard for one wait; each normally ends in a few seconds (the tool's stages take 1 s each). */
const WAIT_MS = 30_000;
const TEST_TIMEOUT_MS = 90_000;

/** Responders that note each elicitation they are given (and fire), answering with `answer`. */
class NotingResponders extends ScriptedResponders {
  private readonly _asked = new Emitter<void>();
  readonly onAsked: Event<void> = this._asked.event;
  readonly asked: Array<{ message: string; ctx: ResponderContext }> = [];
  constructor(answer: (ctx: ResponderContext) => Promise<{ action: 'accept'; content: Record<string, string> }>) {
    super();
    this.elicitImpl = (p, ctx) => {
      this.asked.push({ message: (p as { message?: string }).message ?? '', ctx });
      this._asked.fire();
      return answer(ctx);
    };
  }
  dispose(): void {
    this._asked.dispose();
  }
}

/** Never answers: the question stays open until its signal aborts (the window goes). */
function neverAnswers(ctx: ResponderContext): Promise<never> {
  return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
}

function windowOf(def: ServerDefinition, sessions: SessionStore, storage: TrackerStorage, responders: NotingResponders) {
  return reloadWindow(def, { sessions, storage, responders, defaultPollIntervalMs: 200 });
}

function until(tracker: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string): Promise<SentTaskSnapshot> {
  return untilTask(tracker, key, check, what, WAIT_MS);
}

function reportOf(s: SentTaskSnapshot): string {
  const result = s.outcome?.kind === 'result' ? (s.outcome.result as { content?: Array<{ type: string; text?: string }> }) : undefined;
  return (result?.content ?? []).map((c) => c.text ?? '').join('\n');
}

/** The first window: the research task is called and its question shown, left unanswered; then the window reloads. */
async function askThenReload(def: ServerDefinition, sessions: MemorySessions, storage: MemoryStorage): Promise<{ key: string; taskId: string }> {
  const responders = new NotingResponders(neverAnswers);
  const first = windowOf(def, sessions, storage, responders);
  try {
    await first.connection.start();
    const { tools } = await first.connection.client.listTools();
    const research = tools.find((t): t is Tool => t.name === 'simulate-research-query');
    assert.ok(research, 'the everything server offers its task tool to a task-capable client');
    const key = await first.tracker.callTool(first.connection, research, { topic: 'python', ambiguous: true });
    await waitFor(responders.onAsked, () => responders.asked.length === 1, 'the question, on the tasks/result stream', WAIT_MS);
    const s = first.tracker.get(key)!;
    assert.equal(s.task?.status, 'input_required');
    assert.equal(responders.asked[0]!.ctx.relatedTaskId, s.task?.taskId, 'the question names the task');
    return { key, taskId: s.task!.taskId };
  } finally {
    first.close();
  }
}

test('a question shown before a reload is shown again after it, in the same session, and the answer reaches the server', { timeout: TEST_TIMEOUT_MS }, async () => {
  const server = await startEverythingHttp(ENTRY, WAIT_MS);
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('everything', server.url);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    const { key, taskId } = await askThenReload(def, sessions, storage);
    const kept = (JSON.parse(storage.data as string) as { tasks: Array<{ openQuestion?: { id: unknown; method: string; params?: { message?: string } } }> }).tasks[0]?.openQuestion;
    assert.equal(typeof kept?.id, 'number', 'the open question is kept with the task, under the id the server gave it');
    assert.equal(kept?.method, 'elicitation/create');
    assert.match(kept?.params?.message ?? '', /multiple interpretations/);

    const responders = new NotingResponders(async () => ({ action: 'accept', content: { interpretation: 'snake' } }));
    second = windowOf(def, sessions, storage, responders);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed', 'the same session');
    await second.tracker.onServerRunning(second.connection);
    await waitFor(responders.onAsked, () => responders.asked.length === 1, 'the question, shown again after the reload', WAIT_MS);
    const again = responders.asked[0]!;
    assert.match(again.message, /The research query "python" could have multiple interpretations/);
    assert.equal(again.ctx.relatedTaskId, taskId, 'shown under its task again');
    assert.deepEqual(again.ctx.owner, { kind: 'plain', relatedTaskId: taskId });

    const done = await until(second.tracker, key, (s) => s.phase === 'done' || s.phase === 'error' || s.phase === 'expired', 'the task, answered');
    assert.equal(done.phase, 'done', `${done.phase}: ${done.reason}`);
    assert.equal(done.task?.status, 'completed');
    const report = reportOf(done);
    assert.match(report, /\*\*Clarification\*\*: snake/, `the answered interpretation, not the default: ${report.slice(0, 400) || `${JSON.stringify(done.outcome)}\n${second.log.lines.join('\n')}`}`);
    assert.doesNotMatch(report, /elicitation unavailable/);
    assert.equal(done.questionDropped, undefined);
    assert.equal(responders.asked.length, 1, 'asked once');
  } finally {
    second?.close();
    server.child.kill();
  }
});

test('a question shown before a reload, when the session is replaced: not shown again, and the row says the server went on without the answer', { timeout: TEST_TIMEOUT_MS }, async () => {
  const server = await startEverythingHttp(ENTRY, WAIT_MS);
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('everything', server.url);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    const { key } = await askThenReload(def, sessions, storage);
    // The server no longer has the kept session (as after it expired it): the next window gets a new one.
    assert.equal(sessions.data.size, 1);
    for (const [k, v] of sessions.data) sessions.data.set(k, { ...(v as SavedSession), sessionId: 'a-session-the-server-no-longer-has' });

    const responders = new NotingResponders(async () => ({ action: 'accept', content: { interpretation: 'snake' } }));
    second = windowOf(def, sessions, storage, responders);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'new-session');
    await second.tracker.onServerRunning(second.connection);
    const ended = await until(second.tracker, key, (s) => s.questionDropped !== undefined && (s.phase === 'error' || s.phase === 'done' || s.phase === 'expired'), 'the question dropped');
    assert.equal(ended.questionDropped?.kind, 'new-session');
    assert.equal(ended.questionDropped?.method, 'elicitation/create');
    assert.match(ended.reason ?? '', /"everything" went on without your answer to its question: it is in a new session/);
    assert.equal(responders.asked.length, 0, 'not shown: nobody could take the answer');
    second.close(); // saves
    second = undefined;
    assert.doesNotMatch(JSON.stringify(storage.data ?? ''), /openQuestion/, 'no longer kept');
  } finally {
    second?.close();
    server.child.kill();
  }
});
