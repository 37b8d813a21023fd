/**
 * What a server's received tasks write to the audit (R-SEC-4): each task's own bounded trail, kept with the
 * task, and every entry handed on to the ledger's `onAudit` with the server named, so it lands in
 * that server's log. Failed task lookups are audited too, and a burst of them once per window.
 */
import type { TaskLedger } from './ledger.js';
import type { TaskRecord } from './ledgerRecord.js';
import type { AuditEntry } from './ledgerTypes.js';
import { FailedLookupCounter, appendAudit } from './serverTaskParts.js';

/** The server as its audit names it (its name can change while its tasks live). */
export interface AuditedServer {
  readonly serverId: string;
  readonly serverName: string;
}

export class ServerAudit {
  private readonly _failedLookups = new FailedLookupCounter();

  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _server: AuditedServer,
  ) {}

  /** An entry about one task: kept in its trail, and told to the ledger. */
  task(rec: TaskRecord, event: AuditEntry['event'], detail?: string): void {
    const at = this._ledger.now();
    appendAudit(rec.audit, detail === undefined ? { at, event } : { at, event, detail });
    // Built only when someone listens (the extension logs it); spelled out rather than spread.
    if (this._ledger._hasAuditListeners) {
      const { serverId, serverName } = this._server;
      this._ledger._audit(detail === undefined ? { at, event, serverId, serverName, taskId: rec.taskId } : { at, event, detail, serverId, serverName, taskId: rec.taskId });
    }
  }

  /** An entry about the server as a whole (a refusal, a failed lookup): told to the ledger only. */
  server(event: AuditEntry['event'], detail: string): void {
    this._ledger._audit({ at: this._ledger.now(), event, detail, serverId: this._server.serverId, serverName: this._server.serverName });
  }

  /** A lookup of a task that is not there (or a malformed one), and a burst of them once per window. */
  failedLookup(detail: string): void {
    const burst = this._failedLookups.note(this._ledger.now());
    this.server('rejected', detail);
    if (burst !== undefined) this.server('rejected', `suspicious: ${burst} failed task lookups within a minute (possible task-id enumeration)`);
  }
}
