/**
 * The receiver's task ledger: every task a server asked of this host (task-augmented
 * `sampling/createMessage` and `elicitation/create`).
 *
 * {@link TaskLedger.scope} hands each server connection its own {@link LedgerScope}, which
 * implements the SDK's `TaskStore`; the SDK `Client` serves `tasks/get`, `tasks/result`,
 * `tasks/list` and `tasks/cancel` from it. A scope only ever sees its own tasks (R-SEC-1).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, InvalidParamsError, LimitExceededError, McpError, TaskNotFoundError, errorMessage } from './errors.js';
import { DisposableStore, Emitter, type Event, type IDisposable } from './events.js';
import { assertTransition, isTerminal, type TaskStatus } from './taskState.js';

/** Node timers overflow above this many ms and fire at once; never pass a larger delay. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Limits of R-SEC-2 / R-SEC-3 / R-LIST-1; each is a user setting (see package.json). */
export interface LedgerLimits {
  /** Largest ttl granted; larger requests are capped and the actual ttl reported (R-TASK-3). */
  readonly maxTtlMs: number;
  /** ttl when the request names none. */
  readonly defaultTtlMs: number;
  /** Non-terminal tasks one server may have at once. */
  readonly maxLiveTasksPerServer: number;
  /** Page size of `tasks/list`. */
  readonly listPageSize: number;
  /** Task operations (create/get/result/list/cancel) per second per server, sustained. */
  readonly operationsPerSecond: number;
  /** Burst allowance on top of the sustained rate. */
  readonly operationsBurst: number;
  /** `pollInterval` suggested to requestors. */
  readonly pollIntervalMs: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = {
  maxTtlMs: 60 * 60 * 1000,
  defaultTtlMs: 15 * 60 * 1000,
  maxLiveTasksPerServer: 32,
  listPageSize: 50,
  operationsPerSecond: 50,
  operationsBurst: 200,
  pollIntervalMs: 1000,
};

/** What a task ended with: the result the plain request would have had, or its JSON-RPC error (R-RESULT-1). */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: Result }
  | { readonly kind: 'error'; readonly code: number; readonly message: string; readonly data?: unknown };

/** One line of a task's audit trail (R-SEC-4). */
export interface AuditEntry {
  readonly at: number;
  readonly event: 'created' | 'status' | 'retrieved' | 'cancelled' | 'expired' | 'rejected' | 'discarded';
  readonly detail?: string;
}

/** An audit line with the server it concerns, as written to the server's log. */
export interface AuditRecord extends AuditEntry {
  readonly scopeId: string;
  readonly serverName: string;
  readonly taskId?: string;
}

/** Local facts about a received task that are not on the wire (for the UI). */
export interface ReceivedTaskInfo {
  /** `sampling/createMessage` or `elicitation/create`. */
  readonly method: string;
  /** Short human title, e.g. "Sampling" or "Elicitation: <message>". */
  readonly title: string;
  /** True while the work waits for the user (consent, a form). */
  readonly waitingForUser: boolean;
}

/** A copy of one received task, for the UI. */
export interface ReceivedTaskSnapshot {
  readonly scopeId: string;
  readonly serverName: string;
  readonly task: Task;
  readonly info: ReceivedTaskInfo;
  readonly outcome?: TaskOutcome;
  readonly audit: readonly AuditEntry[];
}

/** Fired on every change of a received task. */
export interface LedgerChange {
  readonly scopeId: string;
  readonly taskId: string;
  readonly kind: 'created' | 'updated' | 'removed';
  /** The task after the change (for `removed`, as it was). */
  readonly task: Task;
  /** Whether the wire-visible status changed (→ `notifications/tasks/status`). */
  readonly statusChanged: boolean;
}

interface TaskRecord {
  readonly taskId: string;
  readonly seq: number;
  readonly createdAt: number;
  readonly ttl: number;
  readonly expiresAt: number;
  readonly pollInterval: number;
  readonly method: string;
  status: TaskStatus;
  statusMessage?: string;
  lastUpdatedAt: number;
  /** `createdAt` and `lastUpdatedAt` as ISO strings, formatted once per change rather than per read. */
  readonly createdAtIso: string;
  lastUpdatedAtIso: string;
  title: string;
  waitingForUser: boolean;
  outcome?: TaskOutcome;
  audit: AuditEntry[];
  /** Present while the work runs; aborted by cancel/expiry, dropped at the end. */
  work?: { readonly controller: AbortController; readonly store: DisposableStore };
  removed: boolean;
}

/** Ledger-wide options. */
export interface LedgerOptions {
  readonly limits?: Partial<LedgerLimits>;
  /** Milliseconds since the epoch; injectable for tests. */
  readonly now?: () => number;
}

/**
 * All received tasks, across servers. Dispose to abort every pending piece of work.
 */
export class TaskLedger implements IDisposable {
  private readonly _scopes = new Map<string, LedgerScope>();
  private readonly _onDidChange = new Emitter<LedgerChange>();
  private readonly _onAudit = new Emitter<AuditRecord>();
  private _limits: LedgerLimits;
  /** Signs `tasks/list` cursors so a cursor that was never issued is rejected (R-LIST-2). */
  readonly cursorKey = randomBytes(32);
  readonly now: () => number;
  private _expiryTimer?: NodeJS.Timeout;
  private _nextExpiry = Infinity;
  private _disposed = false;

  /** Fires on every change of any received task (coalesce in the UI). */
  readonly onDidChange: Event<LedgerChange> = this._onDidChange.event;
  /** Fires for every audit entry, with the server's name (write it to that server's log). */
  readonly onAudit: Event<AuditRecord> = this._onAudit.event;

  constructor(options: LedgerOptions = {}) {
    this._limits = { ...DEFAULT_LEDGER_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
  }

  get limits(): LedgerLimits {
    return this._limits;
  }

  /** Applies changed settings; existing tasks keep their ttl. */
  updateLimits(limits: Partial<LedgerLimits>): void {
    this._limits = { ...this._limits, ...limits };
  }

  /** The store for one server connection. Reuses the scope if `scopeId` already has one. */
  scope(scopeId: string, serverName: string): LedgerScope {
    let s = this._scopes.get(scopeId);
    if (!s) {
      s = new LedgerScope(this, scopeId, serverName);
      this._scopes.set(scopeId, s);
    }
    return s;
  }

  /** The scope of `scopeId`, if any. */
  getScope(scopeId: string): LedgerScope | undefined {
    return this._scopes.get(scopeId);
  }

  /** Copies of every received task, newest first. */
  snapshot(): ReceivedTaskSnapshot[] {
    const out: ReceivedTaskSnapshot[] = [];
    for (const s of this._scopes.values()) out.push(...s.snapshot());
    return out.sort((a, b) => Date.parse(b.task.createdAt) - Date.parse(a.task.createdAt));
  }

  /** Number of non-terminal received tasks, across servers. */
  get activeCount(): number {
    let n = 0;
    for (const s of this._scopes.values()) n += s.liveCount;
    return n;
  }

  /** Forgets a scope: aborts its work and removes its tasks (the server's configuration is gone). */
  deleteScope(scopeId: string): void {
    const s = this._scopes.get(scopeId);
    if (!s) return;
    s.clear('server removed');
    this._scopes.delete(scopeId);
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    if (this._expiryTimer) clearTimeout(this._expiryTimer);
    for (const s of this._scopes.values()) s.abortAll('the extension is shutting down');
    this._onDidChange.dispose();
    this._onAudit.dispose();
  }

  /** @internal */
  _fire(change: LedgerChange): void {
    this._onDidChange.fire(change);
  }

  /** @internal Whether anyone listens to {@link onAudit}. */
  get _hasAuditListeners(): boolean {
    return this._onAudit.hasListeners;
  }

  /** @internal */
  _audit(record: AuditRecord): void {
    this._onAudit.fire(record);
  }

  /** @internal Schedules the sweep for a task expiring at `at`. */
  _scheduleExpiry(at: number): void {
    if (this._disposed || at >= this._nextExpiry) return;
    this._nextExpiry = at;
    if (this._expiryTimer) clearTimeout(this._expiryTimer);
    // Clamp: a ttl beyond 2^31-1 ms must not overflow into an immediate timer.
    const delay = Math.min(Math.max(0, at - this.now()), MAX_TIMER_DELAY_MS);
    this._expiryTimer = setTimeout(() => this._sweep(), delay);
    this._expiryTimer.unref?.();
  }

  private _sweep(): void {
    this._expiryTimer = undefined;
    this._nextExpiry = Infinity;
    const now = this.now();
    let next = Infinity;
    for (const s of this._scopes.values()) next = Math.min(next, s.removeExpired(now));
    if (next !== Infinity) this._scheduleExpiry(next);
  }
}

/** Encodes/decodes signed opaque cursors bound to one scope (R-LIST-2). */
function signCursor(key: Buffer, scopeId: string, seq: number): string {
  const mac = createHmac('sha256', key).update(`${scopeId}\n${seq}`).digest('base64url').slice(0, 22);
  return `${seq.toString(36)}.${mac}`;
}

function verifyCursor(key: Buffer, scopeId: string, cursor: string): number | undefined {
  const dot = cursor.indexOf('.');
  if (dot <= 0) return undefined;
  const seq = parseInt(cursor.slice(0, dot), 36);
  if (!Number.isSafeInteger(seq) || seq < 0 || seq.toString(36) !== cursor.slice(0, dot)) return undefined;
  return signCursor(key, scopeId, seq) === cursor ? seq : undefined;
}

/** A simple token bucket for R-SEC-3. */
class RateLimiter {
  private _tokens: number;
  private _last: number;
  constructor(private readonly _now: () => number, private readonly _limits: () => LedgerLimits) {
    this._tokens = _limits().operationsBurst;
    this._last = _now();
  }
  take(now = this._now()): boolean {
    const { operationsPerSecond, operationsBurst } = this._limits();
    this._tokens = Math.min(operationsBurst, this._tokens + ((now - this._last) / 1000) * operationsPerSecond);
    this._last = now;
    if (this._tokens < 1) return false;
    this._tokens -= 1;
    return true;
  }
}

/** Work run for a received task; resolves with what the plain request would have answered. */
export type TaskWork = (signal: AbortSignal, store: DisposableStore) => Promise<Result>;

/**
 * One server connection's view of the ledger. Implements the SDK's `TaskStore` so the SDK
 * serves the `tasks/*` requests; the `sessionId` arguments are ignored because the scope is
 * already bound to exactly one connection.
 */
export class LedgerScope implements TaskStore {
  private readonly _tasks = new Map<string, TaskRecord>();
  /** Tasks in creation order (holes for removed ones, compacted lazily) for O(log n) paging. */
  private _order: TaskRecord[] = [];
  private _holes = 0;
  private _seq = 0;
  private _live = 0;
  private _failedLookups = 0;
  private _failedLookupWindowStart = 0;
  private readonly _rate: RateLimiter;

  constructor(
    private readonly _ledger: TaskLedger,
    readonly scopeId: string,
    public serverName: string,
  ) {
    this._rate = new RateLimiter(_ledger.now, () => _ledger.limits);
  }

  /** Non-terminal tasks of this scope. */
  get liveCount(): number {
    return this._live;
  }

  // ---- TaskStore (called by the SDK) -------------------------------------------------------

  /** R-CREATE-1..3, R-TASK-3, R-SEC-2: a new `working` task with a random id and a capped ttl. */
  async createTask(taskParams: CreateTaskOptions, _requestId: RequestId, request: Request, _sessionId?: string): Promise<Task> {
    this._checkRate('create');
    const limits = this._ledger.limits;
    if (this._live >= limits.maxLiveTasksPerServer) {
      const msg = `Too many active tasks: server "${this.serverName}" already has ${this._live} (limit ${limits.maxLiveTasksPerServer}, setting mcpTasks.receiver.maxLiveTasksPerServer)`;
      this._auditScope('rejected', msg);
      throw new LimitExceededError(msg);
    }
    const now = this._ledger.now();
    const requested = taskParams.ttl;
    const ttl =
      requested === undefined
        ? Math.min(limits.defaultTtlMs, limits.maxTtlMs)
        : requested === null || !Number.isFinite(requested) || requested > limits.maxTtlMs
          ? limits.maxTtlMs
          : Math.max(0, Math.floor(requested));
    const method = typeof request?.method === 'string' ? request.method : 'unknown';
    const nowIso = isoTime(now);
    const rec: TaskRecord = {
      taskId: randomUUID(),
      seq: ++this._seq,
      createdAt: now,
      lastUpdatedAt: now,
      createdAtIso: nowIso,
      lastUpdatedAtIso: nowIso,
      ttl,
      expiresAt: now + ttl,
      pollInterval: limits.pollIntervalMs,
      method,
      status: 'working',
      title: titleFor(method, request?.params),
      waitingForUser: false,
      audit: [],
      removed: false,
    };
    this._tasks.set(rec.taskId, rec);
    this._order.push(rec);
    this._live++;
    this._addAudit(rec, 'created', `${method}, ttl ${ttl} ms${requested !== undefined && requested !== ttl ? ` (requested ${requested})` : ''}`);
    this._ledger._scheduleExpiry(rec.expiresAt);
    this._ledger._fire({ scopeId: this.scopeId, taskId: rec.taskId, kind: 'created', task: toTask(rec), statusChanged: true });
    return toTask(rec);
  }

  /** R-TASK-1/2: a copy of the task, or null when unknown or expired. */
  async getTask(taskId: string, _sessionId?: string): Promise<Task | null> {
    // One clock read for the rate check and the expiry check (tasks/get is the hot path).
    const now = this._ledger.now();
    this._checkRate('get', now);
    const rec = this._lookup(taskId, now);
    return rec ? toTask(rec) : null;
  }

  /** Called by the SDK's task helpers; the ledger's own {@link complete} is the usual path. */
  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, _sessionId?: string): Promise<void> {
    this.complete(taskId, status, { kind: 'result', result });
  }

  /** R-RESULT-1: the stored result, or the stored JSON-RPC error thrown as such. */
  async getTaskResult(taskId: string, _sessionId?: string): Promise<Result> {
    this._checkRate('result');
    const rec = this._lookup(taskId);
    if (!rec) throw new TaskNotFoundError(taskId);
    if (!isTerminal(rec.status)) throw new InvalidParamsError(`Task ${taskId} has no result yet (status '${rec.status}')`);
    this._addAudit(rec, 'retrieved');
    const outcome = rec.outcome;
    if (!outcome) {
      // Cancelled (or failed without a payload): answer what the plain request would have got.
      throw new McpError(ErrorCode.InternalError, rec.statusMessage ?? `Task ${rec.status}`);
    }
    if (outcome.kind === 'error') throw new McpError(outcome.code, outcome.message, outcome.data);
    return structuredClone(outcome.result);
  }

  /**
   * Called by the SDK for `tasks/cancel` (status `cancelled`) and by its task helpers.
   * A cancel aborts the work (R-CANCEL-2).
   */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, _sessionId?: string): Promise<void> {
    this._checkRate(status === 'cancelled' ? 'cancel' : 'update');
    const rec = this._lookup(taskId);
    if (!rec) throw new TaskNotFoundError(taskId);
    if (status === 'cancelled') {
      this.cancel(taskId, `Cancelled by server "${this.serverName}" (tasks/cancel)`);
      return;
    }
    this._setStatus(rec, status, statusMessage);
  }

  /** R-LIST-1..3: this scope's tasks, a page at a time, with signed opaque cursors. */
  async listTasks(cursor?: string, _sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    this._checkRate('list');
    let after = 0;
    if (cursor !== undefined) {
      const seq = typeof cursor === 'string' ? verifyCursor(this._ledger.cursorKey, this.scopeId, cursor) : undefined;
      if (seq === undefined) {
        this._noteFailedLookup(`invalid cursor ${JSON.stringify(cursor).slice(0, 40)}`);
        throw new InvalidParamsError(`Invalid cursor: ${JSON.stringify(cursor).slice(0, 80)} was not issued by this client`);
      }
      after = seq;
    }
    const now = this._ledger.now();
    const pageSize = Math.max(1, this._ledger.limits.listPageSize);
    const tasks: Task[] = [];
    let lastSeq = after;
    let i = firstIndexAfter(this._order, after);
    for (; i < this._order.length && tasks.length < pageSize; i++) {
      const rec = this._order[i]!;
      if (rec.removed || rec.expiresAt <= now) continue;
      tasks.push(toTask(rec));
      lastSeq = rec.seq;
    }
    // Is there anything visible after the page?
    let more = false;
    for (; i < this._order.length; i++) {
      const rec = this._order[i]!;
      if (!rec.removed && rec.expiresAt > now) {
        more = true;
        break;
      }
    }
    return more ? { tasks, nextCursor: signCursor(this._ledger.cursorKey, this.scopeId, lastSeq) } : { tasks };
  }

  // ---- Host side ---------------------------------------------------------------------------

  /**
   * Runs `work` for a task in the background; its result completes the task unless the task
   * was cancelled or expired meanwhile (R-CANCEL-3). Errors become a `failed` task carrying
   * the JSON-RPC error the plain request would have returned (R-ERR-2).
   */
  run(taskId: string, work: TaskWork): void {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed) throw new TaskNotFoundError(taskId);
    if (rec.work) throw new Error(`Task ${taskId} already has work running`);
    const controller = new AbortController();
    const store = new DisposableStore();
    rec.work = { controller, store };
    void (async () => {
      let outcome: TaskOutcome;
      try {
        outcome = { kind: 'result', result: await work(controller.signal, store) };
      } catch (e) {
        outcome = errorOutcome(e);
      }
      this._endWork(rec);
      if (isTerminal(rec.status) || rec.removed) {
        if (!rec.removed) this._addAudit(rec, 'discarded', `work finished after the task was ${rec.status}; its ${outcome.kind} was discarded`);
        return;
      }
      this.complete(taskId, outcome.kind === 'result' ? (isErrorResult(outcome.result) ? 'failed' : 'completed') : 'failed', outcome);
    })();
  }

  /** Ends a task with an outcome. Ignored (and audited) if the task is already terminal. */
  complete(taskId: string, status: 'completed' | 'failed', outcome: TaskOutcome, statusMessage?: string): void {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed) throw new TaskNotFoundError(taskId);
    if (isTerminal(rec.status)) {
      this._addAudit(rec, 'discarded', `a ${status} outcome arrived after the task was ${rec.status}`);
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
    if (messageChanged) {
      this._setStatus(rec, rec.status, statusMessage);
    } else {
      this._ledger._fire({ scopeId: this.scopeId, taskId, kind: 'updated', task: toTask(rec), statusChanged: false });
    }
  }

  /** R-CANCEL-2: cancels a live task (from the server or the user) and aborts its work. Returns false if terminal. */
  cancel(taskId: string, reason: string): boolean {
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed) throw new TaskNotFoundError(taskId);
    if (isTerminal(rec.status)) return false;
    this._setStatus(rec, 'cancelled', reason);
    this._addAudit(rec, 'cancelled', reason);
    return true;
  }

  /** Removes a terminal task from the ledger (the user cleared it). */
  remove(taskId: string): void {
    const rec = this._tasks.get(taskId);
    if (!rec) return;
    if (!isTerminal(rec.status)) throw new InvalidParamsError(`Task ${taskId} is still ${rec.status}; cancel it first`);
    this._remove(rec);
  }

  /** Copies of this scope's tasks, newest first. */
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

  /** Drops every task of the scope. */
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
        this._addAudit(rec, 'expired', `ttl ${rec.ttl} ms passed in status '${rec.status}'`);
        this._remove(rec);
      } else {
        next = Math.min(next, rec.expiresAt);
      }
    }
    return next;
  }

  // ---- internals ---------------------------------------------------------------------------

  private _lookup(taskId: unknown, now = this._ledger.now()): TaskRecord | undefined {
    if (typeof taskId !== 'string' || taskId.length === 0) {
      this._noteFailedLookup('missing or non-string taskId');
      throw new InvalidParamsError('Invalid params: "taskId" must be a non-empty string');
    }
    const rec = this._tasks.get(taskId);
    if (!rec || rec.removed || rec.expiresAt <= now) {
      this._noteFailedLookup(`unknown task ${taskId.slice(0, 64)}`);
      return undefined;
    }
    return rec;
  }

  private _setStatus(rec: TaskRecord, status: TaskStatus, statusMessage?: string): void {
    assertTransition(rec.taskId, rec.status, status);
    const statusChanged = rec.status !== status;
    const wasLive = !isTerminal(rec.status);
    rec.status = status;
    if (statusMessage !== undefined) rec.statusMessage = statusMessage;
    // A message about the work in progress ("Waiting for you…") is stale once the task completed.
    else if (statusChanged && status === 'completed') delete rec.statusMessage;
    // R-TASK-2: lastUpdatedAt moves on every change (strictly, even within one millisecond).
    rec.lastUpdatedAt = Math.max(this._ledger.now(), rec.lastUpdatedAt + 1);
    rec.lastUpdatedAtIso = isoTime(rec.lastUpdatedAt);
    if (isTerminal(status)) {
      rec.waitingForUser = false;
      if (wasLive) this._live--;
      if (rec.work) {
        rec.work.controller.abort(new Error(statusMessage ?? `task ${status}`));
        this._endWork(rec);
      }
    }
    if (statusChanged) this._addAudit(rec, 'status', `${status}${statusMessage ? `: ${statusMessage}` : ''}`);
    this._ledger._fire({ scopeId: this.scopeId, taskId: rec.taskId, kind: 'updated', task: toTask(rec), statusChanged });
  }

  private _endWork(rec: TaskRecord): void {
    const w = rec.work;
    if (!w) return;
    rec.work = undefined;
    try {
      w.store.dispose();
    } catch (e) {
      this._auditScope('rejected', `disposing the work of ${rec.taskId} failed: ${errorMessage(e)}`);
    }
  }

  private _remove(rec: TaskRecord): void {
    if (rec.removed) return;
    if (!isTerminal(rec.status)) this._live--;
    rec.removed = true;
    this._tasks.delete(rec.taskId);
    this._holes++;
    if (this._holes > 64 && this._holes * 2 > this._order.length) {
      this._order = this._order.filter((r) => !r.removed);
      this._holes = 0;
    }
    this._ledger._fire({ scopeId: this.scopeId, taskId: rec.taskId, kind: 'removed', task: toTask(rec), statusChanged: false });
  }

  private _snapshot(rec: TaskRecord): ReceivedTaskSnapshot {
    return {
      scopeId: this.scopeId,
      serverName: this.serverName,
      task: toTask(rec),
      info: { method: rec.method, title: rec.title, waitingForUser: rec.waitingForUser },
      outcome: rec.outcome ? structuredClone(rec.outcome) : undefined,
      audit: rec.audit.map((a) => ({ ...a })),
    };
  }

  private _checkRate(op: string, now?: number): void {
    if (!this._rate.take(now)) {
      const limits = this._ledger.limits;
      const msg = `Rate limit exceeded for ${op}: server "${this.serverName}" may make ${limits.operationsPerSecond} task operations per second (burst ${limits.operationsBurst}; setting mcpTasks.receiver.operationsPerSecond)`;
      this._auditScope('rejected', msg);
      throw new LimitExceededError(msg);
    }
  }

  /** R-SEC-4: counts failed lookups and flags a burst of them once per window. */
  private _noteFailedLookup(detail: string): void {
    const now = this._ledger.now();
    if (now - this._failedLookupWindowStart > 60_000) {
      this._failedLookupWindowStart = now;
      this._failedLookups = 0;
    }
    this._failedLookups++;
    this._auditScope('rejected', detail);
    if (this._failedLookups === 20) {
      this._auditScope('rejected', `suspicious: ${this._failedLookups} failed task lookups within a minute (possible task-id enumeration)`);
    }
  }

  private _addAudit(rec: TaskRecord, event: AuditEntry['event'], detail?: string): void {
    const entry: AuditEntry = detail === undefined ? { at: this._ledger.now(), event } : { at: this._ledger.now(), event, detail };
    rec.audit.push(entry);
    if (rec.audit.length > 50) rec.audit.splice(1, rec.audit.length - 50);
    // Built only when someone listens (the extension logs it); spelled out rather than spread.
    if (this._ledger._hasAuditListeners) {
      const { scopeId, serverName } = this;
      this._ledger._audit(
        detail === undefined ? { at: entry.at, event, scopeId, serverName, taskId: rec.taskId } : { at: entry.at, event, detail, scopeId, serverName, taskId: rec.taskId },
      );
    }
  }

  private _auditScope(event: AuditEntry['event'], detail: string): void {
    this._ledger._audit({ at: this._ledger.now(), event, detail, scopeId: this.scopeId, serverName: this.serverName });
  }
}

function toTask(rec: TaskRecord): Task {
  const t: Task = {
    taskId: rec.taskId,
    status: rec.status,
    ttl: rec.ttl,
    createdAt: rec.createdAtIso,
    lastUpdatedAt: rec.lastUpdatedAtIso,
    pollInterval: rec.pollInterval,
  };
  if (rec.statusMessage !== undefined) t.statusMessage = rec.statusMessage;
  return t;
}

/** The second last formatted by {@link isoTime}, and its "YYYY-MM-DDTHH:MM:SS." prefix. */
let isoSecond = NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()`, faster: tasks close in time share the formatted second and only
 * "mmmZ" is appended (one concatenation, no per-call number formatting). Used once per task
 * change; `toTask` (every `tasks/get`, every entry of a `tasks/list` page) reuses the strings kept
 * in the record — formatting two dates per read was its main cost (bench/, row 1). Whole
 * milliseconds in years 1970–9999 only; anything else takes the slow path.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > 253_402_300_799_999) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    isoSecond = second;
  }
  return isoPrefix + isoMillis(ms - second * 1000);
}

/** "000Z" … "999Z", made once, so that a time is a single concatenation. */
let isoMillisTable: string[] | undefined;
function isoMillis(frac: number): string {
  isoMillisTable ??= Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);
  return isoMillisTable[frac]!;
}

/** Index of the first record with seq > `after` (records are in ascending seq order). */
function firstIndexAfter(order: readonly TaskRecord[], after: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function titleFor(method: string, params: unknown): string {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === 'sampling/createMessage') return 'Sampling';
  if (method === 'elicitation/create') {
    const msg = typeof p.message === 'string' ? p.message.replace(/\s+/g, ' ').trim() : '';
    return `Elicitation: ${msg.length > 60 ? `${msg.slice(0, 57)}…` : msg}`;
  }
  return method;
}

function isErrorResult(result: Result): boolean {
  return (result as { isError?: unknown }).isError === true;
}

/** Turns a thrown value into the JSON-RPC error a plain request would have returned. */
export function errorOutcome(e: unknown): TaskOutcome {
  if (e instanceof McpError) return { kind: 'error', code: e.code, message: e.message, data: e.data };
  const code = (e as { code?: unknown })?.code;
  return { kind: 'error', code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError, message: errorMessage(e) };
}

function failureMessage(outcome: TaskOutcome): string {
  if (outcome.kind === 'error') return outcome.message;
  const content = (outcome.result as { content?: Array<{ type?: string; text?: string }> }).content;
  const text = content?.find((c) => c.type === 'text')?.text;
  return text ? `Failed: ${text.slice(0, 200)}` : 'Failed';
}
