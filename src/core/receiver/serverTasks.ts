/**
 * One server connection's view of the receiver's task ledger (see ledger.ts): the task store the
 * host's wire layer answers that connection's `tasks/*` from (receiver/wire/receiverRequests.ts),
 * plus what that layer needs — an operation budget charged once per wire request, the one budget
 * every question of the server is charged to (serverBudget.ts, questionDoor.ts), and a wait for a task's end.
 * What it audits goes through serverAudit.ts.
 */
import { randomUUID } from 'node:crypto';
import type { CreateTaskOptions, ReceiverTaskStore } from './taskStore.js';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/client';
import { ErrorCode, InvalidParamsError, ProtocolError, TaskNotFoundError, errorMessage } from '../base/errors.js';
import { DisposableStore } from '../base/lifecycle.js';
import type { TaskLedger } from './ledger.js';
import { isoTime, signCursor, verifyCursor } from './ledgerCodec.js';
import { failureMessage, isErrorResult, newTaskRecord, snapshotOf, toTask, waitForEnd, wake, type TaskRecord } from './ledgerRecord.js';
import { errorOutcome, type ReceivedTaskSnapshot, type TaskOutcome, type TaskWork } from './ledgerTypes.js';
import { WorkAbort } from './workAbort.js';
import { ServerAudit } from './serverAudit.js';
import { ServerBudget } from './serverBudget.js';
import { grantedTtl, listPage } from './serverTaskParts.js';
import { assertTransition, isTerminal, type TaskStatus } from '../base/taskState.js';

/**
 * One server connection's view of the ledger: the {@link ReceiverTaskStore} the host's
 * `tasks/*` answers read (receiverRequests.ts); the `sessionId` arguments are ignored because the
 * object is already bound to exactly one connection.
 *
 * The store's methods cost nothing: one request may call several of them (`getTask` twice for a
 * `tasks/cancel`). The server's budget is charged by {@link admit}, once per wire request (R-SEC-3).
 */
export class ServerTasks implements ReceiverTaskStore {
  private readonly _tasks = new Map<string, TaskRecord>();
  /** Tasks in creation order (holes for removed ones, compacted lazily) for O(log n) paging. */
  private _order: TaskRecord[] = [];
  private _holes = 0;
  private _seq = 0;
  private _live = 0;
  private readonly _audit: ServerAudit;
  private readonly _budget: ServerBudget;

  constructor(
    private readonly _ledger: TaskLedger,
    readonly serverId: string,
    public serverName: string,
  ) {
    this._audit = new ServerAudit(_ledger, this);
    this._budget = new ServerBudget(_ledger, this, this._audit, () => this._live);
  }

  /** Non-terminal tasks of this server. */
  get liveCount(): number {
    return this._live;
  }

  /** Plain (not task-augmented) requests of this server waiting for their answer (see {@link openRequest}). */
  get openRequestCount(): number {
    return this._budget.openRequests;
  }

  /**
   * A plain sampling or elicitation request (or one inside a sent task, 2026-07-28) is being
   * answered: it holds a prompt open like a task does, so it counts against the same per-server
   * limit as live tasks — a server that sends them without `task` gets no more prompts parked at
   * once than one that sends tasks. Throws {@link LimitExceededError} (-32600) beyond the limit;
   * call the returned function once it is answered.
   */
  openRequest(method: string): () => void {
    return this._budget.openRequest(method);
  }

  /** Holds `count` open requests at once or none (a 2026-07-28 `input_required` round: questionDoor.ts). */
  reserve(count: number, what: string, method?: string): () => void {
    return this._budget.reserve(count, what, method);
  }

  // ---- the task store (read by receiverRequests.ts) ------------------------------------------

  /** R-CREATE-1..3, R-TASK-3, R-SEC-2: a new `working` task with a random id and a capped ttl. */
  async createTask(taskParams: CreateTaskOptions, _requestId: RequestId, request: Request, _sessionId?: string): Promise<Task> {
    const limits = this._ledger.limits;
    this._budget.refuseBeyondLimit('Too many active tasks');
    const now = this._ledger.now();
    const requested = taskParams.ttl;
    const ttl = grantedTtl(requested, limits);
    const method = typeof request?.method === 'string' ? request.method : 'unknown';
    const rec = newTaskRecord(randomUUID(), ++this._seq, now, ttl, limits.pollIntervalMs, method, request?.params);
    this._tasks.set(rec.taskId, rec);
    this._order.push(rec);
    this._live++;
    this._audit.task(rec, 'created', `${method}, ttl ${ttl} ms${requested !== undefined && requested !== ttl ? ` (requested ${requested})` : ''}`);
    this._ledger._scheduleExpiry(rec.expiresAt);
    this._ledger._fire({ serverId: this.serverId, taskId: rec.taskId, kind: 'created', task: toTask(rec), statusChanged: true });
    return toTask(rec);
  }

  /** R-TASK-1/2: a copy of the task, or null when unknown or expired. */
  async getTask(taskId: string, _sessionId?: string): Promise<Task | null> {
    return this.getTaskNow(taskId);
  }

  /** Part of the task store; the ledger's own {@link complete} is the usual path. */
  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, _sessionId?: string): Promise<void> {
    this.complete(taskId, status, { kind: 'result', result });
  }

  /** R-RESULT-1: the stored result, or the stored JSON-RPC error thrown as such. */
  async getTaskResult(taskId: string, _sessionId?: string): Promise<Result> {
    const rec = this._lookup(taskId);
    if (!rec) throw new TaskNotFoundError(taskId);
    if (!isTerminal(rec.status)) throw new InvalidParamsError(`Task ${taskId} has no result yet (status '${rec.status}')`);
    this._audit.task(rec, 'retrieved');
    const outcome = rec.outcome;
    if (!outcome) {
      // Cancelled (or failed without a payload): answer what the plain request would have got.
      throw new ProtocolError(ErrorCode.InternalError, rec.statusMessage ?? `Task ${rec.status}`);
    }
    if (outcome.kind === 'error') throw new ProtocolError(outcome.code, outcome.message, outcome.data);
    return structuredClone(outcome.result);
  }

  /**
   * Called for `tasks/cancel` (status `cancelled`, receiverRequests.ts `answerTaskCancel`).
   * A cancel aborts the work (R-CANCEL-2).
   */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, _sessionId?: string): Promise<void> {
    const rec = this._lookup(taskId);
    if (!rec) throw new TaskNotFoundError(taskId);
    if (status === 'cancelled') {
      this.cancel(taskId, `Cancelled by server "${this.serverName}" (tasks/cancel)`);
      return;
    }
    this._setStatus(rec, status, statusMessage);
  }

  /** R-LIST-1..3: this server's tasks, a page at a time, with signed opaque cursors. */
  async listTasks(cursor?: string, _sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    let after = 0;
    if (cursor !== undefined) {
      const seq = typeof cursor === 'string' ? verifyCursor(this._ledger.cursorKey, this.serverId, cursor) : undefined;
      if (seq === undefined) {
        this._audit.failedLookup(`invalid cursor ${JSON.stringify(cursor).slice(0, 40)}`);
        throw new InvalidParamsError(`Invalid cursor: ${JSON.stringify(cursor).slice(0, 80)} was not issued by this client`);
      }
      after = seq;
    }
    const { tasks, lastSeq, more } = listPage(this._order, after, this._ledger.now(), Math.max(1, this._ledger.limits.listPageSize));
    return more ? { tasks, nextCursor: signCursor(this._ledger.cursorKey, this.serverId, lastSeq) } : { tasks };
  }

  // ---- Wire layer (called by HostClient) ----------------------------------------------------

  /**
   * R-SEC-3: charges one wire request of the server (a task-augmented create, `tasks/get`,
   * `tasks/result`, `tasks/list` or `tasks/cancel`) to its operation budget. Throws
   * {@link LimitExceededError} (-32600) when the budget is spent; the connection stays healthy.
   */
  admit(operation: string): void {
    this._budget.admit(operation);
  }

  /** R-TASK-1/2: {@link getTask} without the promise (hostClient.ts answers `tasks/get` with it). */
  getTaskNow(taskId: string): Task | null {
    const rec = this._lookup(taskId);
    return rec ? toTask(rec) : null;
  }

  /** Wire requests charged so far by {@link admit} (the budget spent). */
  get operationsAdmitted(): number {
    return this._budget.operationsAdmitted;
  }

  /**
   * R-RESULT-2: resolves as soon as the task is terminal (at once if it is). Rejects with -32602
   * when the task is unknown, or expires or is removed while waited on, and with -32600
   * "Request cancelled" when `signal` aborts. Event-driven: no timer, no store reads, and one
   * listener on `signal` for the whole wait, removed when it ends. Costs no budget.
   */
  whenTerminal(taskId: string, signal: AbortSignal): Promise<void> {
    let rec: TaskRecord | undefined;
    try {
      rec = this._lookup(taskId);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!rec) return Promise.reject(new TaskNotFoundError(taskId));
    return waitForEnd(rec, signal);
  }

  // ---- Host side ---------------------------------------------------------------------------

  /**
   * Runs `work` for a task in the background; its result completes the task unless the task
   * was cancelled or expired meanwhile (R-CANCEL-3). Errors become a `failed` task carrying
   * the JSON-RPC error the plain request would have returned (R-ERR-2).
   */
  run(taskId: string, work: TaskWork): void {
    this.runWith(taskId, (w) => work(w.signal, w.store));
  }

  /**
   * {@link run}, with the work's signal made only when the work reads `w.signal` (workAbort.ts):
   * for work that may never look at it (the responders, receiver/wire/responders.ts).
   */
  runWith(taskId: string, work: (w: { readonly signal: AbortSignal; readonly store: DisposableStore }) => Promise<Result>): void {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed) throw new TaskNotFoundError(taskId);
    if (rec.work) throw new Error(`Task ${taskId} already has work running`);
    const controller = new WorkAbort();
    const store = new DisposableStore();
    rec.work = { controller, store };
    void (async () => {
      let outcome: TaskOutcome;
      try {
        outcome = {
          kind: 'result',
          result: await work({
            get signal() {
              return controller.signal;
            },
            store,
          }),
        };
      } catch (e) {
        outcome = errorOutcome(e);
      }
      this._endWork(rec);
      // The answer goes back on the one path every outcome takes (`complete`: a task already ended keeps its end, and the late answer is audited as discarded).
      if (rec.removed) return;
      this.complete(taskId, outcome.kind === 'result' ? (isErrorResult(outcome.result) ? 'failed' : 'completed') : 'failed', outcome);
    })();
  }

  /** Ends a task with an outcome. Ignored (and audited) if the task is already terminal. */
  complete(taskId: string, status: 'completed' | 'failed', outcome: TaskOutcome, statusMessage?: string): void {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed) throw new TaskNotFoundError(taskId);
    if (isTerminal(rec.status)) {
      this._audit.task(rec, 'discarded', `a ${status} outcome arrived after the task was ${rec.status}`);
      return;
    }
    rec.outcome = outcome;
    const message = statusMessage ?? (status === 'failed' ? failureMessage(outcome) : undefined);
    this._setStatus(rec, status, message);
  }

  /** Marks whether the work waits for the user (local only; the wire status stays `working`). */
  setWaitingForUser(taskId: string, waiting: boolean, statusMessage?: string): void {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed || isTerminal(rec.status)) return;
    const messageChanged = statusMessage !== undefined && statusMessage !== rec.statusMessage;
    if (rec.waitingForUser === waiting && !messageChanged) return;
    rec.waitingForUser = waiting;
    // The answer path from a form back to the ledger: the task stays live and its status unchanged, so
    // no transition to check, no work to end and no waiter to wake — only the message and its time move.
    if (messageChanged) {
      rec.statusMessage = statusMessage;
      // R-TASK-2: lastUpdatedAt moves on every change (strictly, even within one millisecond).
      rec.lastUpdatedAt = Math.max(this._ledger.now(), rec.lastUpdatedAt + 1);
      rec.lastUpdatedAtIso = isoTime(rec.lastUpdatedAt);
    }
    this._ledger._fire({ serverId: this.serverId, taskId, kind: 'updated', task: toTask(rec), statusChanged: false });
  }

  /** R-CANCEL-2: cancels a live task (from the server or the user) and aborts its work. Returns false if terminal. */
  cancel(taskId: string, reason: string): boolean {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed) throw new TaskNotFoundError(taskId);
    if (isTerminal(rec.status)) return false;
    this._setStatus(rec, 'cancelled', reason);
    this._audit.task(rec, 'cancelled', reason);
    return true;
  }

  /** Removes a terminal task from the ledger (the user cleared it). */
  remove(taskId: string): void {
    const rec = this._tasks.get(taskId);
    if (!rec) return;
    if (!isTerminal(rec.status)) throw new InvalidParamsError(`Task ${taskId} is still ${rec.status}; cancel it first`);
    this._remove(rec);
  }

  /** Copies of this server's tasks, newest first. */
  snapshot(): ReceivedTaskSnapshot[] {
    const out: ReceivedTaskSnapshot[] = [];
    for (let i = this._order.length - 1; i >= 0; i--) {
      const rec = this._order[i]!;
      if (!rec.removed) out.push(this._snapshot(rec));
    }
    return out;
  }

  /** A copy of one task, or undefined. */
  get(taskId: string): ReceivedTaskSnapshot | undefined {
    const rec = this._tasks.get(taskId);
    return rec && !rec.removed ? this._snapshot(rec) : undefined;
  }

  /** Aborts all running work (the connection closed); statuses stay as they are until expiry. */
  abortAll(reason: string): void {
    for (const rec of this._tasks.values()) {
      if (!isTerminal(rec.status)) this.cancel(rec.taskId, reason);
    }
  }

  /** Drops every task of the server. */
  clear(reason: string): void {
    this.abortAll(reason);
    for (const rec of [...this._tasks.values()]) this._remove(rec);
  }

  /** @internal Removes tasks whose ttl has passed; returns the next expiry time. */
  removeExpired(now: number): number {
    let next = Infinity;
    for (const rec of [...this._tasks.values()]) {
      if (rec.expiresAt <= now) {
        if (!isTerminal(rec.status)) {
          // Free the work of a task nobody will ask for any more.
          rec.work?.controller.abort(new Error('task expired'));
          this._endWork(rec);
        }
        this._audit.task(rec, 'expired', `ttl ${rec.ttl} ms passed in status '${rec.status}'`);
        this._remove(rec, 'expired');
      } else {
        next = Math.min(next, rec.expiresAt);
      }
    }
    return next;
  }

  // ---- internals ---------------------------------------------------------------------------

  private _lookup(taskId: unknown, now = this._ledger.now()): TaskRecord | undefined {
    if (typeof taskId !== 'string' || taskId.length === 0) {
      this._audit.failedLookup('missing or non-string taskId');
      throw new InvalidParamsError('Invalid params: "taskId" must be a non-empty string');
    }
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed || rec.expiresAt <= now) {
      this._audit.failedLookup(`unknown task ${taskId.slice(0, 64)}`);
      return undefined;
    }
    return rec;
  }

  private _setStatus(rec: TaskRecord, status: TaskStatus, statusMessage?: string): void {
    assertTransition(rec.taskId, rec.status, status);
    const statusChanged = rec.status !== status;
    const wasLive = !isTerminal(rec.status);
    const ending = isTerminal(status);
    rec.status = status;
    if (statusMessage !== undefined) rec.statusMessage = statusMessage;
    // A message about the work in progress ("Waiting for you…") is stale once the task completed.
    else if (statusChanged && status === 'completed') delete rec.statusMessage;
    // R-TASK-2: lastUpdatedAt moves on every change (strictly, even within one millisecond).
    rec.lastUpdatedAt = Math.max(this._ledger.now(), rec.lastUpdatedAt + 1);
    rec.lastUpdatedAtIso = isoTime(rec.lastUpdatedAt);
    if (ending) {
      rec.waitingForUser = false;
      if (wasLive) this._live--;
      if (rec.work) {
        rec.work.controller.abort(new Error(statusMessage ?? `task ${status}`));
        this._endWork(rec);
      }
    }
    if (statusChanged) this._audit.task(rec, 'status', `${status}${statusMessage ? `: ${statusMessage}` : ''}`);
    this._ledger._fire({ serverId: this.serverId, taskId: rec.taskId, kind: 'updated', task: toTask(rec), statusChanged });
    if (ending) wake(rec, 'terminal');
  }

  private _endWork(rec: TaskRecord): void {
    const w = rec.work;
    if (!w) return;
    rec.work = undefined;
    try {
      w.store.dispose();
    } catch (e) {
      this._audit.server('rejected', `disposing the work of ${rec.taskId} failed: ${errorMessage(e)}`);
    }
  }

  private _remove(rec: TaskRecord, why: 'expired' | 'removed' = 'removed'): void {
    if (rec.removed) return;
    wake(rec, why);
    if (!isTerminal(rec.status)) this._live--;
    rec.removed = true;
    this._tasks.delete(rec.taskId);
    this._holes++;
    if (this._holes > 64 && this._holes * 2 > this._order.length) {
      this._order = this._order.filter((r) => !r.removed);
      this._holes = 0;
    }
    this._ledger._fire({ serverId: this.serverId, taskId: rec.taskId, kind: 'removed', task: toTask(rec), statusChanged: false });
  }

  private _snapshot(rec: TaskRecord): ReceivedTaskSnapshot {
    return snapshotOf(rec, this.serverId, this.serverName);
  }
}
