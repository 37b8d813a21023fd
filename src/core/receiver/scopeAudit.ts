/**
 * What a ledger scope writes to the audit (R-SEC-4): each task's own bounded trail, kept with the
 * task, and every entry handed on to the ledger's `onAudit` with the server named, so it lands in
 * that server's log. Failed task lookups are audited too, and a burst of them once per window.
 */
import type { TaskLedger } from './ledger.js';
import type { TaskRecord } from './ledgerRecord.js';
import type { AuditEntry } from './ledgerTypes.js';
import { FailedLookupCounter, appendAudit } from './scopeParts.js';

/** The scope as its audit names it (the server's name can change while the scope lives). */
export interface AuditedScope {
  readonly scopeId: string;
  readonly serverName: string;
}

export class ScopeAudit {
  private readonly _failedLookups = new FailedLookupCounter();

  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _scope: AuditedScope,
  ) {}

  /** An entry about one task: kept in its trail, and told to the ledger. */
  task(rec: TaskRecord, event: AuditEntry['event'], detail?: string): void {
    const at = this._ledger.now();
    appendAudit(rec.audit, detail === undefined ? { at, event } : { at, event, detail });
    // Built only when someone listens (the extension logs it); spelled out rather than spread.
    if (this._ledger._hasAuditListeners) {
      const { scopeId, serverName } = this._scope;
      this._ledger._audit(detail === undefined ? { at, event, scopeId, serverName, taskId: rec.taskId } : { at, event, detail, scopeId, serverName, taskId: rec.taskId });
    }
  }

  /** An entry about the scope as a whole (a refusal, a failed lookup): told to the ledger only. */
  scope(event: AuditEntry['event'], detail: string): void {
    this._ledger._audit({ at: this._ledger.now(), event, detail, scopeId: this._scope.scopeId, serverName: this._scope.serverName });
  }

  /** A lookup of a task that is not there (or a malformed one), and a burst of them once per window. */
  failedLookup(detail: string): void {
    const burst = this._failedLookups.note(this._ledger.now());
    this.scope('rejected', detail);
    if (burst !== undefined) this.scope('rejected', `suspicious: ${burst} failed task lookups within a minute (possible task-id enumeration)`);
  }
}
