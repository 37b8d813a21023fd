/**
 * One sent task, the one owner of all that happens to it: its record (what is stored and shown),
 * under a key fixed when it is made (the server's task id is a field, `record.task`, never its
 * key), its phase (moved only here, each move checked against the table at the end of this file), its clock (taskClock.ts),
 * and, while it is tracked live through a connection, its drive (taskDrive.ts; inlineInputs.ts on
 * the 2026-07-28 wire) — polling, the result fetch and the answers to its input — with its cancel
 * (taskCancel.ts) and the questions its server asks for it. What it needs beyond itself comes from
 * its narrow {@link SentTaskHost}. Dispose it when it is forgotten.
 */
import { ErrorCode, reasonError } from '../base/errors.js';
import type { IDisposable } from '../base/lifecycle.js';
import type { RequestorConnection } from '../connection/connection.js';
import type { SentRecord } from './sentRecord.js';
import type { TaskWire, WireTask } from './wire/taskWire.js';
import { FINISHED_PHASES, type SentTaskChange, type SentTaskPhase, type TrackerOptions } from './trackerTypes.js';
import { taskWires } from './wire/wires.js';
import type { CallLink } from '../receiver/questionDoor.js';
import { DEFAULT_MAX_QUESTIONS_PER_CALL } from '../config/limits.js';
import { stopFollowing } from './wire/taskWatch.js';
import { QuestionKeeper } from './keptQuestion.js';
import { TaskClock } from './taskClock.js';
import { sameTaskState, TaskDrive } from './taskDrive.js';
import { InlineInputDrive, splitInline } from './inlineInputs.js';
import { assertNever, isTerminal } from '../base/taskState.js';
import { TaskCancel } from './taskCancel.js';
import { originHoldAt, originHoldText, sameHold } from './sentOrigin.js';

/** What a sent task needs from the tracker that keeps it: time, settings, its wire, and where to tell what happened. */
export interface SentTaskHost {
  readonly options: TrackerOptions;
  now(): number;
  /** The task wire a connection speaks when a task has none of its own (`wireFor`, or what the server declares). */
  wireFor(connection: RequestorConnection): TaskWire;
  /** The task changed (`kind`): tell listeners, store it, start what may start. */
  changed(task: SentTask, kind: SentTaskChange['kind']): void;
  /** The server named it (`record.task` set): its status notifications and questions find it by that id from now on; tell listeners (a change that names it). */
  named(task: SentTask): void;
  /** A `tasks/get` was answered for it, changed or not. */
  polled(task: SentTask): void;
  /** The connection a request went through is gone: every task tracked through it pauses. */
  connectionLost(connection: RequestorConnection): void;
  /** Its status notifications arrive through `connection` (one listener per connection). */
  listenOn(connection: RequestorConnection): void;
}

/** A reason shown for a trouble that passes by itself; the step that ends it clears it (if still shown). */
export type PassingTrouble = 'cancel-pending' | 'result-retry' | 'input-failed';

export class SentTask implements IDisposable {
  /** Its key among the tracker's tasks: fixed when it is made, whatever the server or the configuration later say. */
  readonly key: string;
  private _clock?: TaskClock;
  /** Set while the task is tracked live through a connection. */
  live: TaskDrive | undefined = undefined;
  /**
   * The arguments of a call made in this window, for "Run Again…": in memory only, never in the
   * record (what is stored and shown keeps only the redacted summary, SECURITY.md "What is kept").
   */
  callArguments?: Readonly<Record<string, unknown>>;
  /**
   * Aborted once its server's questions for it are refused and withdrawn ({@link closeQuestions});
   * made only when something reads it (a 2025-11-25 question's composite signal): the questions answered
   * here link with `onClose`, and most calls ask none (bench: requestor host CPU, and section 8).
   */
  private _questions?: AbortController;
  private _questionsClosed?: string;
  /** What withdraws each question of its that is open now ({@link CallLink.onClose}). */
  private _openQuestions?: Set<(reason: Error) => void>;
  private _call?: CallLink;
  private _cancel?: TaskCancel;
  private _keeper?: QuestionKeeper;

  constructor(
    /** What is stored and shown of it; the steps below change it. */
    readonly record: SentRecord,
    readonly host: SentTaskHost,
  ) {
    this.key = record.key;
    // Loaded ended or cancelled by the user: its server's questions stay refused after a restart too.
    if (FINISHED_PHASES.has(record.phase) || record.cancelledByUser) this.closeQuestions('it ended or was cancelled');
  }

  /** Its timers (polls, a result tried again) and when it last polled: made when first needed (most stored tasks never poll). */
  get clock(): TaskClock {
    return (this._clock ??= new TaskClock(this.host));
  }

  get phase(): SentTaskPhase {
    return this.record.phase;
  }

  // ---- its phase -----------------------------------------------------------------------------

  /**
   * Moves it to `phase`, with `reason` when given (`null` clears it); throws
   * {@link PhaseTransitionError} for a move {@link canMovePhase} does not allow. Tells no one: the step
   * that moves it does ({@link changed}) once all it changes is done.
   */
  moveTo(phase: SentTaskPhase, reason?: string | null): void {
    const rec = this.record as { phase: SentTaskPhase };
    if (!canMovePhase(rec.phase, phase)) throw new PhaseTransitionError(this.key, rec.phase, phase);
    rec.phase = phase;
    if (reason !== undefined) this.record.reason = reason ?? undefined;
  }

  /** Moves it to `phase` (noting when it finished), with `reason` if given; tracking stops. */
  finish(phase: SentTaskPhase, reason?: string): void {
    const rec = this.record;
    if (FINISHED_PHASES.has(phase)) {
      if (!FINISHED_PHASES.has(rec.phase)) rec.finishedAt = this.host.now();
      this.closeQuestions('it ended');
      // A question kept for a reload goes with the task (keptQuestion.ts drops one the server went on without first).
      rec.openQuestion = undefined;
      rec.resultStream = undefined;
    }
    this.moveTo(phase, reason);
    this.detach();
    this.changed();
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
    this.moveTo('paused', reason);
    this.changed();
  }

  /** The server named it: the task it is from now on (its key stays), tracked live; the host tells of it. */
  named(task: WireTask): void {
    this.record.task = this.live ? this.live.takeInline(task) : task;
    this.moveTo('tracking');
    this.host.named(this);
  }

  /**
   * What the server's list says of it while it is not tracked live (identity.ts): its status and
   * inline result; its input requests wait until it is followed. A terminal status never moves back.
   */
  takeListed(task: WireTask): void {
    const rec = this.record;
    if (rec.task && isTerminal(rec.task.status) && !isTerminal(task.status)) return;
    const before = rec.task;
    const { task: plain, outcome } = splitInline(task);
    const changed = !before || !sameTaskState(before, plain) || (!!outcome && !rec.outcome);
    if (outcome && !rec.outcome) {
      rec.outcome = outcome;
      rec.outcomeDropped = undefined;
      rec.resultFetches++;
    }
    rec.task = plain;
    if (changed) this.changed();
  }

  /** Tells the host it changed. */
  changed(kind: SentTaskChange['kind'] = 'updated'): void {
    this.host.changed(this, kind);
  }

  // ---- its reasons ---------------------------------------------------------------------------

  /** Shows `text` as its reason, for a trouble of `kind` that passes by itself. */
  setPassing(kind: PassingTrouble, text: string): void {
    this.record.reason = text;
    this.record.passingReason = { kind, text };
  }

  /** The trouble of `kind` is over: its reason goes, if it is still the one shown. */
  clearPassing(kind: PassingTrouble): void {
    const rec = this.record;
    const passing = rec.passingReason;
    if (passing?.kind !== kind) return;
    if (rec.reason === passing.text) rec.reason = undefined;
    rec.passingReason = undefined;
  }

  /**
   * Whether requests about it may go to `connection` now (sentOrigin.ts). When not, it is held:
   * tracking stops, a task still running is `paused`, and its reason says where it was sent and
   * where the definition points now. When it may, a hold of before is lifted (the caller resumes it).
   */
  mayReach(connection: Pick<RequestorConnection, 'origin'>): boolean {
    const rec = this.record;
    const hold = originHoldAt(rec, connection);
    if (!hold) {
      if (rec.originHold && rec.reason === originHoldText(rec.originHold, rec.serverName)) rec.reason = undefined;
      rec.originHold = undefined;
      return true;
    }
    this.detach();
    const text = originHoldText(hold, rec.serverName);
    if (rec.phase === 'tracking' || rec.phase === 'sending') this.moveTo('paused');
    if (rec.originHold && rec.reason === text && sameHold(rec.originHold, hold)) return false;
    rec.originHold = hold;
    rec.reason = text;
    this.changed();
    return false;
  }

  // ---- tracking it live ----------------------------------------------------------------------

  /** The wire it was sent on, else the one `connection` speaks (select.ts). */
  wire(connection: RequestorConnection): TaskWire {
    return taskWires().wireByGeneration(this.record.wire) ?? this.host.wireFor(connection);
  }

  /** Starts tracking it live through `connection` (ending any earlier tracking first). */
  attach(connection: RequestorConnection): TaskDrive {
    this.detach();
    const wire = this.wire(connection);
    const live = (this.live = wire.updateTask ? new InlineInputDrive(this, connection, wire) : new TaskDrive(this, connection, wire));
    this.host.listenOn(connection);
    return live;
  }

  /** Stops tracking it live: its clock stopped, its requests aborted, the connection's per-task state dropped. */
  /** Tracking stops; `windowGoing`: because the window goes (a reload), see {@link TaskDrive.stop}. */
  detach(windowGoing = false): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    this._clock?.stop();
    live.stop(windowGoing);
    const task = this.record.task;
    if (task) stopFollowing(live.connection, task.taskId);
  }

  /** Its 2025-11-25 question kept across a reload (keptQuestion.ts): made when first needed. */
  get keeper(): QuestionKeeper {
    return (this._keeper ??= new QuestionKeeper(this));
  }

  /** The user pressed Cancel (taskCancel.ts): resolves once it is sent, abandoned, or said why not. */
  cancel(): Promise<void> {
    return (this._cancel ??= new TaskCancel(this)).request();
  }

  /** Sends `tasks/cancel` (a cancel requested before the task was named, or while its server was away). */
  sendCancel(): Promise<void> {
    return (this._cancel ??= new TaskCancel(this)).send();
  }

  /** It is forgotten: tracking stops, and its server's questions for it are withdrawn. */
  dispose(): void {
    this.closeQuestions('it was forgotten');
    this.detach();
  }

  // ---- its questions -------------------------------------------------------------------------

  /**
   * The call as the questions its server asks for it see it (questionDoor.ts): made once, when
   * the first question comes (the question door and the call's rounds read it then), read when asked (its task id comes
   * when the server names the task).
   */
  get call(): CallLink {
    if (this._call) return this._call;
    const rec = this.record;
    const closed = () => this._closedSignal();
    return (this._call = {
      key: () => this.key,
      serverId: rec.serverId,
      serverName: rec.serverName,
      taskId: () => rec.task?.taskId,
      get closed() {
        return closed();
      },
      isClosed: () => !this.takesQuestions,
      onClose: (withdraw) => this._onQuestionsClosed(withdraw),
      maxQuestions: () => this.host.options.maxQuestionsPerCall?.() ?? DEFAULT_MAX_QUESTIONS_PER_CALL,
      answering: (open) => {
        if (this.live) this.live.answeringInputs = Math.max(0, this.live.answeringInputs + (open ? 1 : -1));
      },
      asked: (question) => this.keeper.keep(question),
    });
  }

  /** The signal of {@link CallLink.closed}: made when a question first reads it, aborted already if the questions were closed before. */
  private _closedSignal(): AbortSignal {
    if (!this._questions) {
      this._questions = new AbortController();
      if (this._questionsClosed !== undefined) this._questions.abort(reasonError(this._questionsClosed));
    }
    return this._questions.signal;
  }

  /** Calls `withdraw` once its questions close (at once if they have), until the returned link is disposed. */
  private _onQuestionsClosed(withdraw: (reason: Error) => void): IDisposable {
    if (this._questionsClosed !== undefined) {
      withdraw(reasonError(this._questionsClosed));
      return { dispose: () => undefined };
    }
    const open = (this._openQuestions ??= new Set());
    open.add(withdraw);
    return { dispose: () => void open.delete(withdraw) };
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
    const open = this._openQuestions;
    if (!this._questions && !open?.size) return;
    // One reason for all, as one aborted signal gave it to every question linked to it.
    const error = reasonError(reason);
    this._questions?.abort(error);
    if (open) {
      this._openQuestions = undefined;
      for (const withdraw of open) withdraw(error);
    }
  }
}

// ---- where a sent task stands, and the moves between those places --------------------------
// The one table `moveTo` checks before every change of phase. A finished task never starts again,
// a task the server named never goes back to waiting in the queue or to being sent: such a move is
// a defect here, and it throws where it happens rather than showing a row that lies.

/** Whether a sent task may move from `from` to `to` (staying is allowed: a reason or a connection may change). */
export function canMovePhase(from: SentTaskPhase, to: SentTaskPhase): boolean {
  if (from === to) return true;
  switch (from) {
    case 'queued':
      // Sent once a slot frees; cancelled or failed before it reached the server.
      return to === 'sending' || to === 'done' || to === 'error';
    case 'sending':
      // Named by the server (tracking), answered plainly or failed (finished), or its server went away.
      return to === 'tracking' || to === 'paused' || FINISHED_PHASES.has(to);
    case 'tracking':
    case 'paused':
    case 'orphaned':
      // A task the server named waits, resumes or ends; it never goes back to the queue nor out again.
      return to === 'tracking' || to === 'paused' || to === 'orphaned' || FINISHED_PHASES.has(to);
    case 'done':
    case 'expired':
    case 'error':
      return false;
    default:
      return assertNever(from);
  }
}

/** A sent task was asked to move where it cannot go from where it stands (a defect of this host, never of a server). */
export class PhaseTransitionError extends Error {
  constructor(
    readonly key: string,
    readonly from: SentTaskPhase,
    readonly to: SentTaskPhase,
  ) {
    super(`Sent task ${key} cannot move from '${from}' to '${to}'${FINISHED_PHASES.has(from) ? `: it already ended (${from})` : ''}`);
    this.name = 'PhaseTransitionError';
  }
}
