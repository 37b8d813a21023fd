/**
 * The receiver's task ledger: every task a server asked of this host (task-augmented
 * `sampling/createMessage` and `elicitation/create`).
 *
 * {@link TaskLedger.forServer} hands each server connection its own {@link ServerTasks}, the task
 * store the host's wire layer answers the 2025-11-25 `tasks/get`, `tasks/result`, `tasks/list` and
 * `tasks/cancel` from (receiver/wire/receiverRequests.ts: SDK v2 serves them from no store of its
 * own). A server's tasks never include another's (R-SEC-1).
 */
import { randomBytes } from 'node:crypto';
import { Emitter, type Event } from '../base/event.js';
import { Disposable, toDisposable } from '../base/lifecycle.js';
import { ServerTasks } from './serverTasks.js';
import { DEFAULT_LEDGER_LIMITS, MAX_TIMER_DELAY_MS, type AuditRecord, type LedgerChange, type LedgerLimits, type LedgerOptions, type ReceivedTaskSnapshot } from './ledgerTypes.js';

export * from './ledgerTypes.js';
export { isoTime } from './ledgerCodec.js';
export { ServerTasks } from './serverTasks.js';

/**
 * All received tasks, across servers. Dispose to abort every pending piece of work.
 */
export class TaskLedger extends Disposable {
  private readonly _servers = new Map<string, ServerTasks>();
  private readonly _onDidChange = this._register(new Emitter<LedgerChange>());
  private readonly _onAudit = this._register(new Emitter<AuditRecord>());
  private _limits: LedgerLimits;
  /**
   * Signs `tasks/list` cursors so a cursor that was never issued is rejected (R-LIST-2). Drawn at
   * the first cursor, not at activation (bench: "startup load + activation, no server").
   */
  get cursorKey(): Buffer {
    return (this._cursorKey ??= randomBytes(32));
  }

  private _cursorKey?: Buffer;
  readonly now: () => number;
  private _expiryTimer?: NodeJS.Timeout;
  private _nextExpiry = Infinity;

  /** Fires on every change of any received task (coalesce in the UI). */
  readonly onDidChange: Event<LedgerChange> = this._onDidChange.event;
  /** Fires for every audit entry, with the server's name (write it to that server's log). */
  readonly onAudit: Event<AuditRecord> = this._onAudit.event;

  constructor(options: LedgerOptions = {}) {
    super();
    this._limits = { ...DEFAULT_LEDGER_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    // Registered after the emitters, so run before they go: the cancellations are still heard.
    this._register(toDisposable(() => this._servers.forEach((s) => s.abortAll('the extension is shutting down'))));
    this._register(toDisposable(() => clearTimeout(this._expiryTimer)));
  }

  get limits(): LedgerLimits {
    return this._limits;
  }

  /** Applies changed settings; existing tasks keep their ttl. */
  updateLimits(limits: Partial<LedgerLimits>): void {
    this._limits = { ...this._limits, ...limits };
  }

  /** The store for one server connection. Reuses the server's if `serverId` already has them. */
  forServer(serverId: string, serverName: string): ServerTasks {
    let s = this._servers.get(serverId);
    if (!s) {
      s = new ServerTasks(this, serverId, serverName);
      this._servers.set(serverId, s);
    }
    return s;
  }

  /** The received tasks of `serverId`, if any. */
  tasksOf(serverId: string): ServerTasks | undefined {
    return this._servers.get(serverId);
  }

  /** Copies of every received task, newest first. */
  snapshot(): ReceivedTaskSnapshot[] {
    const out: ReceivedTaskSnapshot[] = [];
    for (const s of this._servers.values()) out.push(...s.snapshot());
    return out.sort((a, b) => Date.parse(b.task.createdAt) - Date.parse(a.task.createdAt));
  }

  /** Number of non-terminal received tasks, across servers. */
  get activeCount(): number {
    let n = 0;
    for (const s of this._servers.values()) n += s.liveCount;
    return n;
  }

  /** Forgets a server's tasks: aborts its work and removes its tasks (the server's configuration is gone). */
  forgetServer(serverId: string): void {
    const s = this._servers.get(serverId);
    if (!s) return;
    s.clear('server removed');
    this._servers.delete(serverId);
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
    if (this._isDisposed || at >= this._nextExpiry) return;
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
    for (const s of this._servers.values()) next = Math.min(next, s.removeExpired(now));
    if (next !== Infinity) this._scheduleExpiry(next);
  }
}
