/**
 * A sent task tracked live through one connection: the loop that drives it there, owned by its
 * {@link SentTask} (made by `attach`, ended by `detach`) — take in what the server says of the task
 * (an answer to `tasks/get` or `tasks/cancel`, a status notification: R-NOTIFY-2, never a
 * replacement for polling), decide what follows (fetch the payload, answer input, poll again at the
 * latest `pollInterval`: R-GET-1), and `tasks/result` (R-RESULT-1/2/4) with retry. Its timers are
 * the task's clock (taskClock.ts); its requests go out through the connection's narrow port
 * (`RequestorConnection`) and the task's wire, and only while that connection reaches where the task
 * was sent (sentOrigin.ts). The 2026-07-28 wire answers input inline (inlineInputs.ts); this one
 * asks `tasks/result`, on whose stream the 2025-11-25 server's requests arrive.
 */
import type { CallToolResult, Task } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError, errorMessage, isConnectionClosed, withoutMcpPrefix } from '../base/errors.js';
import { errorOutcome, type TaskOutcome } from '../base/taskOutcome.js';
import { isTerminal } from '../base/taskState.js';
import { MAX_TIMER_DELAY_MS } from '../config/limits.js';
import type { Continuity, RequestorConnection } from '../connection/connection.js';
import { isRefusedByHost } from '../connection/messageBounds.js';
import { sameOrigin } from '../connection/serverOrigin.js';
import type { KeptAsking } from './keptQuestion.js';
import { permanentPollError, permanentPollErrorMessage } from './pollErrors.js';
import { RequestScope } from './requestScope.js';
import type { SentRecord } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import { backoffMs, firstZodIssue, isNetworkError, isZodError, statusImpliedBy } from './trackerUtil.js';
import type { TaskWire, WireTask } from './wire/taskWire.js';
import { keepableToken, resumeResult, type ResumeWatch } from './wire/resultStream.js';
import type { Poller } from './taskClock.js';
import { watchTask } from './wire/taskWatch.js';

export class TaskDrive implements Poller {
  /** The session's requests, aborted together when tracking stops (requestScope.ts). */
  readonly requests = new RequestScope();
  /** Tracking resumed after the server stopped or restarted: a task it no longer knows was lost with it, not expired. */
  resumedAfterPause = false;
  /** `tasks/result` in flight. */
  resultCall: Promise<void> | undefined = undefined;
  resultFailures = 0;
  private _failures = 0;
  private _networkFailures = 0;
  /** `tasks/get` requests in flight (their answers schedule the next poll). */
  private _polling = 0;
  /** The task's `createdAt`, parsed once per session (its ttl is checked on every answer). */
  private _createdAt: { readonly text: string; readonly ms: number } | undefined = undefined;
  /** `tasks/cancel` in flight (taskCancel.ts). */
  cancelling: Promise<void> | undefined = undefined;
  /** Settles when the creating `tools/call` has been answered (or failed). */
  created: Promise<void> | undefined = undefined;
  /**
   * 2026-07-28: requests of the call's own `input_required` rounds being answered (before it is a
   * task): nothing of the call is on the wire meanwhile, so a Cancel abandons it at once.
   */
  answeringInputs = 0;
  /** The call was abandoned by a Cancel during such a round. */
  abandonedWhileAnswering = false;
  /** 2025-11-25: a cut result stream being resumed; aborted to give it up (its bound: {@link _boundResume}). */
  private _resuming: AbortController | undefined = undefined;
  /** 2025-11-25: the question kept from before a reload, asked again this session (keptQuestion.ts). */
  keptAsking: KeptAsking | undefined = undefined;
  /** The task's record (its owner's; this drive writes what the server says of it). */
  protected readonly _rec: SentRecord;

  constructor(
    protected readonly _task: SentTask,
    readonly connection: RequestorConnection,
    /** The wire the task speaks on this connection. */
    readonly wire: TaskWire,
  ) {
    this._rec = _task.record;
  }

  /** Whether this drive still drives its task (tracking did not stop nor move to another connection). */
  get current(): boolean {
    return this._task.live === this;
  }

  // ---- what the server says of the task ------------------------------------------------------

  /** Takes in the server's view of the task; a terminal status never moves back, and an answer that changes nothing the task shows is no change. */
  take(wireTask: WireTask): void {
    const rec = this._rec;
    if (rec.task && isTerminal(rec.task.status) && !isTerminal(wireTask.status)) return; // never move back
    const before = rec.task;
    const outcome = rec.outcome;
    rec.task = this.takeInline(wireTask); // a fresh object: no copy
    // No event, no redraw of its row (a redraw makes VS Code forget the rows under it for a moment,
    // so a click on one of them lost its task), no write to storage.
    if (before && rec.outcome === outcome && sameTaskState(before, rec.task)) return;
    this._task.changed();
  }

  /** The plain Task of a wire task (2025-11-25 answers carry nothing inline: kept as decoded, no copy per poll). */
  takeInline(task: WireTask): Task {
    return task;
  }

  /**
   * Decides what to do after the task changed: fetch, answer input, or poll again. `extra`: the
   * update did not come from a poll answer (a notification, a cancel answer, a result); it never
   * postpones a due poll nor starts one while one is due or in flight (R-GET-1, R-NOTIFY-2).
   */
  afterUpdate(extra = false): void {
    const rec = this._rec;
    const task = rec.task;
    if (!this.current || !task) return;
    // A question kept from before a reload that the server stopped waiting for (keptQuestion.ts).
    if (this.keptAsking) this._task.keeper.overtaken(task.status);
    // Ended by its ttl without reaching a terminal status: stop, with the reason.
    if (!isTerminal(task.status) && task.ttl !== null && this._createdAtMs(task.createdAt) + task.ttl < this._task.host.now()) {
      this._task.finish('expired', `It outlived its ttl (${task.ttl} ms) without finishing; last status '${task.status}'.`);
      return;
    }
    switch (task.status) {
      case 'input_required':
        // R-RESULT-4 (keep polling, R-GET-1); 2026-07-28: answered inline (inlineInputs.ts).
        this.inputRequired();
        break;
      case 'completed':
      case 'failed':
        this._task.clock.stopPolling();
        this._boundResume();
        if (rec.outcome) this._task.finish('done');
        else void this.fetchResult();
        return;
      case 'cancelled':
        // A cancelled task has no payload: not the error of an abandoned tasks/result either.
        if (rec.outcome?.kind === 'error') rec.outcome = undefined;
        this._task.finish('done');
        return;
      case 'working':
        break;
    }
    if (!extra || (!this._task.clock.pollDue && this._polling === 0)) this.schedulePoll();
  }

  /** The task waits for input: 2025-11-25 calls tasks/result at once; the server's requests arrive on it (R-RESULT-4). */
  protected inputRequired(): void {
    void this.fetchResult();
  }

  // ---- polling -------------------------------------------------------------------------------

  /** The interval to wait before the next `tasks/get`: the latest `pollInterval` (R-GET-1), within bounds. */
  pollInterval(atLeastMs = 0): number {
    const options = this._task.host.options;
    const fallback = typeof options.defaultPollIntervalMs === 'function' ? options.defaultPollIntervalMs() : options.defaultPollIntervalMs;
    return Math.min(Math.max(this._rec.task?.pollInterval ?? fallback ?? 1000, options.minPollIntervalMs ?? 100, atLeastMs), MAX_TIMER_DELAY_MS);
  }

  schedulePoll(atLeastMs = 0): void {
    this.pollIn(this.pollInterval(atLeastMs));
  }

  pollIn(delayMs: number): void {
    const task = this._rec.task;
    if (!this.current || !task) return;
    // Push first where the server can (its polls stay the fallback): a no-op once watched.
    watchTask(this.connection, task.taskId);
    this._task.clock.pollIn(delayMs, this);
  }

  /** Resumes polling, waiting out what is left of the pollInterval since the last `tasks/get`. */
  resumePolling(): void {
    const left = this.pollInterval() - this._task.clock.sinceLastPoll();
    if (left > 0) this.pollIn(left);
    else this.poll();
  }

  /** A poll is due (the clock's timer, or a resume after the interval passed). */
  poll(): void {
    void this.pollOnce().catch(ignore);
  }

  async pollOnce(): Promise<void> {
    const rec = this._rec;
    if (!this.current || !rec.task || !this.stillAtOrigin()) return;
    rec.polls++;
    this._task.clock.polled();
    const taskId = rec.task.taskId;
    let task: WireTask;
    this._polling++;
    try {
      // No AbortSignal: a tasks/get is answered at once, so cancelling one saves the server nothing,
      // and an answer that arrives after tracking stopped is ignored below (`current`).
      // A signal per poll was most of the poll loop's own CPU (bench: requestor host CPU; an AbortController
      // and the SDK's abort listener per request; the SDK never removes that listener, so one
      // signal cannot be shared across polls either).
      task = await this.wire.getTask(this.connection.client, taskId);
    } catch (e) {
      this._polling--;
      if (this.current) this._pollFailed(e);
      return;
    }
    this._polling--;
    if (!this.current) return;
    this._failures = 0;
    this._networkFailures = 0;
    if (task.taskId !== taskId) {
      this._task.finish('error', `tasks/get answered for a different task (${task.taskId})`);
      return;
    }
    this.take(task);
    this._task.host.polled(this._task);
    this.afterUpdate();
  }

  private _pollFailed(e: unknown): void {
    const rec = this._rec;
    const sent = this._task;
    if (isConnectionClosed(e) || this.connection.state.kind !== 'running') return sent.host.connectionLost(this.connection);
    // Only the final status was missing (tasks/result already answered): keep what the payload says.
    if (rec.outcome) return this.finishWithOutcome();
    if (e instanceof ProtocolError && e.code === ErrorCode.InvalidParams) {
      // A server that restarted (stdio: a new process) forgets its tasks: that is a lost task, not an expired one.
      if (this.resumedAfterPause) sent.finish('error', lostReason(rec.serverName, this.connection.continuity, withoutMcpPrefix(e.message)));
      else sent.finish('expired', `The server no longer knows this task: ${withoutMcpPrefix(e.message)}`);
      return;
    }
    if (isRefusedByHost(e)) {
      // Too deep to read (connection/messageBounds.ts): the next answer would be refused the same way.
      return sent.finish('error', `"${rec.serverName}" answered tasks/get with a message ${withoutMcpPrefix(errorMessage(e)).replace(/^this host refused the answer: /, 'this host does not read: ')}; it is no longer polled.`);
    }
    const permanent = permanentPollError(e);
    // Asking again gets the same answer (e.g. -32020 HeaderMismatch): end it now, saying why (pollErrors.ts).
    if (permanent) return sent.finish('error', permanentPollErrorMessage(rec.serverName, permanent));
    if (isNetworkError(e)) {
      // Not the task's fault: the connection notices a server that is gone (and pauses us);
      // until then, ask again with a growing delay.
      this._networkFailures++;
      return this.schedulePoll(backoffMs(this._networkFailures + 1, 500));
    }
    this._failures++;
    if (this._failures >= (sent.host.options.maxPollFailures ?? 3)) {
      return sent.finish('error', `tasks/get failed ${this._failures} times in a row; last: ${isZodError(e) ? `invalid answer: ${firstZodIssue(e)}` : errorMessage(e)}`);
    }
    this.schedulePoll();
  }

  // ---- the payload ---------------------------------------------------------------------------

  /**
   * Fetches `tasks/result` once per record (R-RESULT-1/2/4): the result, or the JSON-RPC error.
   * A network error is retried with backoff; after `maxResultAttempts` a terminal task rests as
   * `done` without payload, and Retrieve Result (or the next connect) asks again.
   */
  fetchResult(): Promise<void> {
    const rec = this._rec;
    if (!this.current || !rec.task || rec.outcome) return Promise.resolve();
    if (this.resultCall) return this.resultCall;
    if (this._task.clock.resultRetryDue || !this.stillAtOrigin()) return Promise.resolve();
    return (this.resultCall = this._fetch(rec.task.taskId, isTerminal(rec.task.status)));
  }

  private async _fetch(taskId: string, terminal: boolean): Promise<void> {
    const rec = this._rec;
    const sent = this._task;
    let outcome: TaskOutcome;
    try {
      // A terminal task's result is answered at once (R-RESULT-1), so nothing would be saved by
      // aborting it, and an answer after tracking stopped is ignored (`current`): no AbortSignal
      // then (one per task; bench: requestor host CPU). While `input_required` it waits (R-RESULT-2/4)
      // and must be abortable.
      const stream = { onresumptiontoken: this._noteEventId };
      const get = (signal?: AbortSignal) => this.wire.getToolResult(this.connection.client, taskId, signal, stream);
      // A stream the server numbers (an event store) outlives a reload: the next window resumes it.
      const result: CallToolResult = (await this._resumed(taskId)) ?? (await (terminal ? get() : this.requests.run(get, { outlivesWindow: true })));
      outcome = { kind: 'result', result };
    } catch (e) {
      if (!this.current) return;
      this.resultCall = undefined;
      if (isConnectionClosed(e) || this.connection.state.kind !== 'running') return sent.host.connectionLost(this.connection);
      if (isNetworkError(e)) return this._resultFailedToArrive(e);
      outcome = errorOutcome(e);
    }
    if (!this.current) return;
    this.resultCall = undefined;
    this.resultFailures = 0;
    rec.resultFetches++;
    rec.resultStream = undefined;
    rec.outcome = outcome;
    rec.outcomeDropped = undefined;
    sent.clearPassing('result-retry');
    if (rec.phase === 'done' || isTerminal(rec.task!.status)) return sent.finish('done');
    // tasks/result answered, so the task is terminal (R-RESULT-2); its final status comes with
    // the next tasks/get when it is due — never sooner than the pollInterval (R-GET-1).
    sent.changed();
    this.afterUpdate(/* extra */ true);
  }

  /**
   * Each event id of the open result stream is kept on the record (wire/resultStream.ts), with
   * the id of the request it answers, so a reload in the same session resumes the stream from
   * there; one the host would not send back, or of a request it cannot name, is not kept.
   */
  private readonly _noteEventId = (token: string): void => {
    const rec = this._rec;
    if (!this.current || rec.outcome || !rec.task) return;
    const requestId = resumeWatchOf(this.connection)?.requestIdOf(rec.task.taskId);
    const kept = keepableToken(token) && requestId !== undefined ? { eventId: token, requestId } : undefined;
    if (rec.resultStream?.eventId === kept?.eventId && rec.resultStream?.requestId === kept?.requestId) return;
    rec.resultStream = kept;
    this._task.changed();
  };

  /**
   * The stream of a `tasks/result` cut by a reload, resumed where the session is the same
   * (`Last-Event-ID`): its result, or undefined when there is none to resume or the server refuses
   * (no event store, an event id it does not know): then a new `tasks/result` goes out, as before.
   * A JSON-RPC error the resumed stream carries is thrown, as a new request's would be.
   */
  private async _resumed(taskId: string): Promise<CallToolResult | undefined> {
    const rec = this._rec;
    const stream = rec.resultStream;
    if (stream === undefined) return undefined;
    // Tried once: the stream resumed records its own ids from here.
    rec.resultStream = undefined;
    const connection = this.connection;
    const watch = resumeWatchOf(connection);
    if (connection.continuity.kind !== 'resumed' || !watch) return undefined; // a new session: the stream went with the old one
    connection.log.info(`resuming the result stream of task ${taskId} (Last-Event-ID)`);
    const giveUp = (this._resuming = new AbortController());
    if (rec.task && isTerminal(rec.task.status)) this._boundResume();
    let resumed;
    try {
      resumed = await this.requests.run((signal) => resumeResult(this.wire, connection.client, watch, { taskId, stream, onresumptiontoken: this._noteEventId, giveUp: giveUp.signal }, signal), { outlivesWindow: true });
    } finally {
      if (this._resuming === giveUp) this._resuming = undefined;
      this._task.clock.stopResumeBound();
    }
    if (resumed.kind === 'result') return resumed.result;
    connection.log.info(`the result stream of task ${taskId} could not be resumed (${resumed.reason}); asking tasks/result again`);
    return undefined;
  }

  /**
   * The task ended while its result stream is being resumed: a server that accepted the resume but
   * has nothing left to send on it (it forgot the events, or the stream stays open and silent)
   * would leave the task waiting forever. The stream gets one poll interval on the task's clock to
   * carry the result; then it is given up and a new `tasks/result` asks for it.
   */
  private _boundResume(): void {
    const resuming = this._resuming;
    if (!resuming) return;
    const waitMs = this.pollInterval();
    this._task.clock.boundResumeIn(waitMs, () => resuming.abort(new Error(`the task ended and the resumed stream carried no result within ${waitMs} ms`)));
  }

  private _resultFailedToArrive(e: unknown): void {
    const rec = this._rec;
    const sent = this._task;
    this.resultFailures++;
    if (this.resultFailures >= (sent.host.options.maxResultAttempts ?? 6)) {
      this.resultFailures = 0;
      // Not terminal (input_required): polling goes on and asks again on the next such answer.
      if ((rec.task && isTerminal(rec.task.status)) || rec.phase === 'done') {
        sent.setPassing('result-retry', `tasks/result could not reach "${rec.serverName}" (${errorMessage(e)}); Retrieve Result tries again.`);
        sent.finish('done');
      }
      return;
    }
    const delay = backoffMs(this.resultFailures, sent.host.options.resultRetryBaseMs ?? 500);
    sent.setPassing('result-retry', `tasks/result failed (${errorMessage(e)}); trying again in ${Math.ceil(delay / 100) / 10} s`);
    sent.changed();
    sent.clock.retryResultIn(delay, () => void (this.current && this.fetchResult()));
  }

  /** Finishes a task whose payload is known but whose final status could not be polled. */
  finishWithOutcome(): void {
    const rec = this._rec;
    if (rec.task && rec.outcome && !isTerminal(rec.task.status)) rec.task = { ...rec.task, status: statusImpliedBy(rec.outcome) };
    this._task.finish('done');
  }

  // ---- where it goes -------------------------------------------------------------------------

  /**
   * Before each request about the task: whether its connection still reaches where it was sent
   * (a connection that restarted resolves its URL or command line anew). When not, the task is
   * held (sentTask.ts `mayReach`) and the request does not go out.
   */
  stillAtOrigin(): boolean {
    const connection = this.connection;
    return this.current && (sameOrigin(this._rec.sentTo, connection.origin) || connection.origin === undefined || this._task.mayReach(connection));
  }

  /**
   * Tracking stopped: its requests are aborted (its timers are the task's clock: stopped by the
   * task). `windowGoing`: a `tasks/result` whose stream can be resumed (an event id kept) is not
   * cancelled on the server; the next window resumes its stream (wire/resultStream.ts).
   */
  stop(windowGoing = false): void {
    this.requests.stop(windowGoing && this._rec.resultStream !== undefined);
  }

  /** `Date.parse(createdAt)`, parsed once per tracking session rather than on every poll answer. */
  private _createdAtMs(createdAt: string): number {
    if (this._createdAt?.text !== createdAt) this._createdAt = { text: createdAt, ms: Date.parse(createdAt) };
    return this._createdAt.ms;
  }
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

/** Whether two answers about one task say the same: status, message, times, ttl and interval. */
export function sameTaskState(a: Task, b: Task): boolean {
  return (
    a.status === b.status &&
    a.statusMessage === b.statusMessage &&
    a.lastUpdatedAt === b.lastUpdatedAt &&
    a.createdAt === b.createdAt &&
    a.ttl === b.ttl &&
    a.pollInterval === b.pollInterval
  );
}

/** The refusals of resumed result streams seen on `connection` (its task wire's side: wire/taskWireSide.ts). */
function resumeWatchOf(connection: RequestorConnection): ResumeWatch | undefined {
  return (connection.sides.find((s) => s.kind === 'task-wire') as { readonly resumes?: ResumeWatch } | undefined)?.resumes;
}

/** One function for every poll's `.catch` rather than a new closure per poll. */
function ignore(): undefined {
  return undefined;
}
