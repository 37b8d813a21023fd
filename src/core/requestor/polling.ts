/** Polling a sent task: what follows each update (fetch, answer input, poll again), `tasks/get` at the latest `pollInterval` (R-GET-1) and its failures. */
import { ErrorCode, ProtocolError, isConnectionClosed } from '../base/errors.js';
import type { WireTask } from './wire/taskWire.js';
import type { Continuity } from '../connection/connection.js';
import { errorMessage, withoutMcpPrefix } from '../base/errors.js';
import { isTerminal } from '../base/taskState.js';
import { MAX_TIMER_DELAY_MS } from '../config/limits.js';
import type { LiveState, SentTask } from './sentTask.js';
import { permanentPollError, permanentPollErrorMessage } from './pollErrors.js';
import { answerInputRequests } from './taskInput.js';
import { isRefusedByHost } from '../connection/messageBounds.js';
import { backoffMs, firstZodIssue, isNetworkError, isZodError } from './trackerUtil.js';
import { fetchResult, finishWithOutcome } from './results.js';
import { applyTask } from './taskUpdates.js';
import { stillAtOrigin } from './sentOrigin.js';
import { watchTask } from './wire/taskWatch.js';
import { keptQuestionOvertaken } from './keptQuestion.js';

/**
 * Decides what to do after the task changed: fetch, answer input, or poll again. `extra`: the
 * update did not come from a poll answer (a notification, a cancel answer, a result); it never
 * postpones a due poll nor starts one while one is due or in flight (R-GET-1, R-NOTIFY-2).
 */
export function afterUpdate(sent: SentTask, extra = false): void {
  const rec = sent.record;
  const live = sent.live;
  const task = rec.task;
  if (!live || !task) return;
  // A question kept from before a reload that the server stopped waiting for (keptQuestion.ts).
  if (live.keptAsking) keptQuestionOvertaken(sent, task.status);
  // Ended by its ttl without reaching a terminal status: stop, with the reason.
  if (!isTerminal(task.status) && task.ttl !== null && createdAtMs(live, task.createdAt) + task.ttl < sent.host.now()) {
    sent.finish('expired', `It outlived its ttl (${task.ttl} ms) without finishing; last status '${task.status}'.`);
    return;
  }
  switch (task.status) {
    case 'input_required':
      // R-RESULT-4: call tasks/result at once; the server's requests arrive on it. Keep polling (R-GET-1).
      // 2026-07-28: the requests come inline (`inputRequests`), answered with tasks/update.
      if (sent.wire(live.connection).updateTask) answerInputRequests(sent);
      else void fetchResult(sent);
      break;
    case 'completed':
    case 'failed':
      if (live.timer) clearTimeout(live.timer);
      live.timer = undefined;
      if (rec.outcome) sent.finish('done');
      else void fetchResult(sent);
      return;
    case 'cancelled':
      // A cancelled task has no payload: not the error of an abandoned tasks/result either.
      if (rec.outcome?.kind === 'error') rec.outcome = undefined;
      sent.finish('done');
      return;
    case 'working':
      break;
  }
  if (!extra || (!live.timer && live.polling === 0)) schedulePoll(sent);
}

/** The interval to wait before the next `tasks/get`: the latest `pollInterval` (R-GET-1), within bounds. */
export function pollInterval(sent: SentTask, atLeastMs = 0): number {
  const rec = sent.record;
  return Math.min(
    Math.max(rec.task?.pollInterval ?? sent.host.options.defaultPollIntervalMs ?? 1000, sent.host.options.minPollIntervalMs ?? 100, atLeastMs),
    MAX_TIMER_DELAY_MS,
  );
}

export function schedulePoll(sent: SentTask, atLeastMs = 0): void {
  pollIn(sent, pollInterval(sent, atLeastMs));
}

export function pollIn(sent: SentTask, delayMs: number): void {
  const rec = sent.record;
  const live = sent.live;
  if (!live || !rec.task) return;
  // Push first where the server can (its polls stay the fallback): a no-op once watched.
  watchTask(live.connection, rec.task.taskId);
  if (live.timer) clearTimeout(live.timer);
  live.timer = setTimeout(() => {
    live.timer = undefined;
    void pollOnce(sent).catch(ignore);
  }, delayMs);
}

/** Resumes polling, waiting out what is left of the pollInterval since the last `tasks/get`. */
export function resumePolling(sent: SentTask): void {
  const since = sent.lastPollAt === undefined ? Infinity : sent.host.now() - sent.lastPollAt;
  const left = pollInterval(sent) - since;
  if (left > 0) pollIn(sent, left);
  else void pollOnce(sent).catch(ignore);
}

/**
 * Why a task the server no longer knows after tracking resumed was lost, as it really happened
 * (connection `continuity`): a new server process, a new HTTP session, or neither (the server
 * itself forgot it).
 */
export function lostReason(serverName: string, continuity: Continuity, answer: string): string {
  switch (continuity.kind) {
    case 'new-process':
      return `Lost: "${serverName}" runs as a new process${continuity.detail ? ` (${continuity.detail})` : ''}, which does not know the tasks of the old one (${answer})`;
    case 'new-session':
      return `Lost: "${serverName}" is in a new session${continuity.detail ? ` (${continuity.detail})` : ''}, and the task belonged to the old one (${answer})`;
    case 'resumed':
    case 'first':
      return `Lost: "${serverName}" no longer knows this task (${answer})`;
  }
}

/** One function for every poll's `.catch` rather than a new closure per poll. */
function ignore(): undefined {
  return undefined;
}

export async function pollOnce(sent: SentTask): Promise<void> {
  const rec = sent.record;
  const live = sent.live;
  if (!live || !rec.task || !stillAtOrigin(sent)) return;
  rec.polls++;
  sent.lastPollAt = sent.host.now();
  let task: WireTask;
  live.polling++;
  try {
    const taskId = rec.task.taskId;
    // No AbortSignal: a tasks/get is answered at once, so cancelling one saves the server nothing,
    // and an answer that arrives after tracking stopped is ignored below (`sent.live !== live`).
    // A signal per poll was most of the poll loop's own CPU (bench: requestor host CPU; an AbortController
    // and the SDK's abort listener per request; the SDK never removes that listener, so one
    // signal cannot be shared across polls either).
    task = await sent.wire(live.connection).getTask(live.connection.client, taskId);
  } catch (e) {
    live.polling--;
    if (sent.live !== live) return;
    if (isConnectionClosed(e) || live.connection.state.kind !== 'running') {
      sent.host.connectionLost(live.connection);
      return;
    }
    if (rec.outcome) {
      // Only the final status was missing (tasks/result already answered): keep what the payload says.
      finishWithOutcome(sent);
      return;
    }
    if (e instanceof ProtocolError && e.code === ErrorCode.InvalidParams) {
      // A server that restarted (stdio: a new process) forgets its tasks: that is a lost task, not an expired one.
      if (live.resumedAfterPause) sent.finish('error', lostReason(rec.serverName, live.connection.continuity, withoutMcpPrefix(e.message)));
      else sent.finish('expired', `The server no longer knows this task: ${withoutMcpPrefix(e.message)}`);
      return;
    }
    if (isRefusedByHost(e)) {
      // Too deep to read (connection/messageBounds.ts): the next answer would be refused the same way.
      sent.finish('error', `"${rec.serverName}" answered tasks/get with a message ${withoutMcpPrefix(errorMessage(e)).replace(/^this host refused the answer: /, 'this host does not read: ')}; it is no longer polled.`);
      return;
    }
    const permanent = permanentPollError(e);
    if (permanent) {
      // Asking again gets the same answer (e.g. -32020 HeaderMismatch): end it now, saying why (pollErrors.ts).
      sent.finish('error', permanentPollErrorMessage(rec.serverName, permanent));
      return;
    }
    if (isNetworkError(e)) {
      // Not the task's fault: the connection notices a server that is gone (and pauses us);
      // until then, ask again with a growing delay.
      live.networkFailures++;
      schedulePoll(sent, backoffMs(live.networkFailures + 1, 500));
      return;
    }
    live.failures++;
    const max = sent.host.options.maxPollFailures ?? 3;
    if (live.failures >= max) {
      sent.finish('error', `tasks/get failed ${live.failures} times in a row; last: ${isZodError(e) ? `invalid answer: ${firstZodIssue(e)}` : errorMessage(e)}`);
      return;
    }
    schedulePoll(sent);
    return;
  }
  live.polling--;
  if (sent.live !== live) return;
  live.failures = 0;
  live.networkFailures = 0;
  if (task.taskId !== rec.task.taskId) {
    sent.finish('error', `tasks/get answered for a different task (${task.taskId})`);
    return;
  }
  applyTask(sent, task);
  sent.host.polled(sent);
  afterUpdate(sent);
}

/** `Date.parse(createdAt)`, parsed once per tracking session rather than on every poll answer. */
function createdAtMs(live: LiveState, createdAt: string): number {
  if (live.createdAt?.text !== createdAt) live.createdAt = { text: createdAt, ms: Date.parse(createdAt) };
  return live.createdAt.ms;
}
