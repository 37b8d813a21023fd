/**
 * One sent task: its record (what is stored and shown) and, while it is tracked live, its
 * runtime state (the connection, timers, requests in flight), with the steps of its life —
 * attach to a connection, detach, pause, finish, tell of a change. Its polling, result fetch,
 * cancel and input answers (polling.ts, results.ts, cancellation.ts, taskInput.ts) work on this
 * object alone; what they need beyond it comes from its {@link SentTaskHost}.
 */
import { ErrorCode } from '../base/errors.js';
import type { RequestorConnection } from '../connection/connection.js';
import { RequestScope } from './requestScope.js';
import { FINISHED_PHASES, type SentRecord } from './sentRecord.js';
import type { TaskInline, TaskWire } from './wire/taskWire.js';
import type { SentTaskChange, SentTaskPhase, TrackerOptions } from './trackerTypes.js';
import { taskWires } from './wire/wires.js';
import { forgetTaskProgress } from './trackerUtil.js';
import type { CallLink } from '../receiver/questionDoor.js';
import { DEFAULT_MAX_QUESTIONS_PER_CALL } from '../config/limits.js';
import { unwatchTask } from './wire/taskWatch.js';
import { keepQuestion, type KeptAsking } from './keptQuestion.js';

/** What a sent task needs from the tracker that keeps it: time, settings, its wire, and where to tell what happened. */
export interface SentTaskHost {
  readonly options: TrackerOptions;
  now(): number;
  /** The task wire a connection speaks when a task has none of its own (`wireFor`, or what the server declares). */
  wireFor(connection: RequestorConnection): TaskWire;
  /** The task changed (`kind` and, re-keyed, the key it had): tell listeners, store it, start what may start. */
  changed(task: SentTask, kind: SentTaskChange['kind'], from?: string): void;
  /** A `tasks/get` was answered for it, changed or not. */
  polled(task: SentTask): void;
  /** The connection a request went through is gone: every task tracked through it pauses. */
  connectionLost(connection: RequestorConnection): void;
  /** Its status notifications arrive through `connection` (one listener per connection). */
  listenOn(connection: RequestorConnection): void;
}

/** The runtime state of a task tracked live through one connection (none while paused, finished or stored). */
export interface LiveState {
  /** The session's requests, aborted together when tracking stops (requestScope.ts). */
  requests: RequestScope;
  connection: RequestorConnection;
  /** Tracking resumed after the server stopped or restarted: a task it no longer knows was lost with it, not expired. */
  resumedAfterPause?: boolean;
  timer?: NodeJS.Timeout;
  /** `tasks/result` in flight. */
  resultCall?: Promise<void>;
  /** A `tasks/result` retry waiting for its backoff. */
  resultRetry?: NodeJS.Timeout;
  resultFailures: number;
  failures: number;
  networkFailures: number;
  /** `tasks/get` requests in flight (their answers schedule the next poll). */
  polling: number;
  /** The task's `createdAt`, parsed (polling.ts; its ttl is checked on every answer). */
  createdAt?: { readonly text: string; readonly ms: number };
  /** `tasks/cancel` in flight. */
  cancelling?: Promise<void>;
  /** Settles when the creating `tools/call` has been answered (or failed). */
  created?: Promise<void>;
  /** 2026-07-28: the outstanding `inputRequests` of the latest update. */
  inputRequests?: TaskInline['inputRequests'];
  /** 2026-07-28: `inputRequests` keys presented to the user this session (each once across polls). */
  presentedInputs?: Set<string>;
  /** 2026-07-28: input requests presented and not yet settled. */
  openInputs?: number;
  /**
   * 2026-07-28: requests of the call's own `input_required` rounds being answered (before it is a
   * task): nothing of the call is on the wire meanwhile, so a Cancel abandons it at once.
   */
  answeringInputs: number;
  /** The call was abandoned by a Cancel during such a round. */
  abandonedWhileAnswering: boolean;
  /** 2025-11-25: the question kept from before a reload, asked again this session (keptQuestion.ts). */
  keptAsking: KeptAsking | undefined;
}

export class SentTask {
  /** Set while the task is tracked live through a connection. */
  live?: LiveState;
  /** When the last `tasks/get` went out (this session), so a resume waits out the pollInterval. */
  lastPollAt?: number;
  /**
   * The arguments of a call made in this window, for "Run Again…": in memory only, never in the
   * record (what is stored and shown keeps only the redacted summary, SECURITY.md "What is kept").
   */
  callArguments?: Readonly<Record<string, unknown>>;
  /**
   * Aborted once its server's questions for it are refused and withdrawn ({@link closeQuestions});
   * made only when a question reads it (most calls ask none: bench, requestor host CPU and section 8).
   */
  private _questions?: AbortController;
  private _questionsClosed?: string;
  private _call?: CallLink;

  constructor(
    /** What is stored and shown of it; the steps below change it. */
    readonly record: SentRecord,
    readonly host: SentTaskHost,
  ) {
    // Loaded ended or cancelled by the user: its server's questions stay refused after a restart too.
    if (FINISHED_PHASES.has(record.phase) || record.cancelledByUser) this.closeQuestions('it ended or was cancelled');
  }

  get key(): string {
    return this.record.key;
  }

  /**
   * The call as the questions its server asks for it see it (questionDoor.ts): made once, when
   * the first question comes (callScope.ts reads it then), read when asked (its key and task id
   * change as it becomes a task).
   */
  get call(): CallLink {
    if (this._call) return this._call;
    const rec = this.record;
    const closed = () => this._closedSignal();
    return (this._call = {
      key: () => rec.key,
      serverId: rec.serverId,
      serverName: rec.serverName,
      taskId: () => rec.task?.taskId,
      get closed() {
        return closed();
      },
      maxQuestions: () => this.host.options.maxQuestionsPerCall?.() ?? DEFAULT_MAX_QUESTIONS_PER_CALL,
      answering: (open) => {
        if (this.live) this.live.answeringInputs = Math.max(0, this.live.answeringInputs + (open ? 1 : -1));
      },
      asked: (question) => keepQuestion(this, question),
    });
  }

  /** The signal of {@link CallLink.closed}: made when a question first reads it, aborted already if the questions were closed before. */
  private _closedSignal(): AbortSignal {
    if (!this._questions) {
      this._questions = new AbortController();
      if (this._questionsClosed !== undefined) this._questions.abort(new Error(this._questionsClosed));
    }
    return this._questions.signal;
  }

  /** Whether its server may still ask questions for it. */
  get takesQuestions(): boolean {
    return this._questionsClosed === undefined;
  }

  /**
   * It ended, was cancelled by the user or was forgotten: every question still open for it is
   * withdrawn (their signals abort) and any new one is refused (questionDoor.ts).
   */
  closeQuestions(reason: string): void {
    if (this._questionsClosed !== undefined) return;
    this._questionsClosed = reason;
    this._questions?.abort(new Error(reason));
  }

  /** The wire it was sent on, else the one `connection` speaks (select.ts). */
  wire(connection: RequestorConnection): TaskWire {
    return taskWires().wireByGeneration(this.record.wire) ?? this.host.wireFor(connection);
  }

  /** Starts tracking it live through `connection` (ending any earlier tracking first). */
  attach(connection: RequestorConnection): LiveState {
    this.detach();
    // Every field from the start: one object shape for all live states (each field added later
    // made a new one, and code reading them was compiled again for it; bench: requestor host CPU).
    this.live = {
      requests: new RequestScope(),
      connection,
      resumedAfterPause: false,
      timer: undefined,
      resultCall: undefined,
      resultRetry: undefined,
      resultFailures: 0,
      failures: 0,
      networkFailures: 0,
      polling: 0,
      createdAt: undefined,
      cancelling: undefined,
      created: undefined,
      inputRequests: undefined,
      presentedInputs: undefined,
      openInputs: undefined,
      answeringInputs: 0,
      abandonedWhileAnswering: false,
      keptAsking: undefined,
    };
    this.host.listenOn(connection);
    return this.live;
  }

  /** Stops tracking it live: timers cleared, its requests aborted, the connection's per-task state dropped. */
  detach(): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    if (live.timer) clearTimeout(live.timer);
    if (live.resultRetry) clearTimeout(live.resultRetry);
    live.requests.stop();
    // R-PROGRESS-1 ends with tracking: drop the progress handler the SDK keeps for the task's
    // creating request (it only does so itself for tasks in its own store).
    const task = this.record.task;
    if (task) {
      forgetTaskProgress(live.connection, task.taskId);
      unwatchTask(live.connection, task.taskId);
    }
  }

  /** Stops tracking until the server is back (a plain call in flight has lost its answer). */
  pause(reason: string): void {
    this.detach();
    const rec = this.record;
    if (rec.mode === 'plain' && rec.phase === 'sending') {
      rec.outcome ??= { kind: 'error', code: ErrorCode.ConnectionClosed, message: reason };
      this.finish('error', reason);
      return;
    }
    if (rec.phase !== 'tracking' && rec.phase !== 'sending') return;
    rec.phase = 'paused';
    rec.reason = reason;
    this.changed();
  }

  /** Moves it to `phase` (noting when it finished), with `reason` if given; tracking stops. */
  finish(phase: SentTaskPhase, reason?: string): void {
    const rec = this.record;
    if (!FINISHED_PHASES.has(rec.phase) && FINISHED_PHASES.has(phase)) rec.finishedAt = this.host.now();
    if (FINISHED_PHASES.has(phase)) {
      this.closeQuestions('it ended');
      // A question kept for a reload goes with the task (keptQuestion.ts drops one the server went on without first).
      rec.openQuestion = undefined;
    }
    rec.phase = phase;
    if (reason !== undefined) rec.reason = reason;
    this.detach();
    this.changed();
  }

  /** Tells the host it changed. */
  changed(kind: SentTaskChange['kind'] = 'updated', from?: string): void {
    this.host.changed(this, kind, from);
  }
}
