/**
 * What one server may hold and spend on this host: its live tasks and the plain requests it has
 * open count against one limit (R-SEC-2), so a server that sends requests without `task` gets no
 * more prompts parked at once than one that sends tasks; and each wire request it sends is charged
 * to an operation budget (R-SEC-3). A refusal is audited and thrown as a -32600 the server reads;
 * the connection stays healthy.
 */
import { LimitExceededError } from '../base/errors.js';
import type { TaskLedger } from './ledger.js';
import { RateLimiter } from './rateLimiter.js';
import type { AuditedServer, ServerAudit } from './serverAudit.js';

export class ServerBudget {
  private _openRequests = 0;
  private readonly _rate: RateLimiter;

  /** `live` counts the server's non-terminal tasks. */
  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _server: AuditedServer,
    private readonly _audit: ServerAudit,
    private readonly _live: () => number,
  ) {
    this._rate = new RateLimiter(_ledger.now, () => {
      const l = _ledger.limits;
      return { ratePerSecond: l.operationsPerSecond, burst: l.operationsBurst };
    });
  }

  /** Plain requests waiting for their answer. */
  get openRequests(): number {
    return this._openRequests;
  }

  /** Wire requests charged so far by {@link admit} (the budget spent). */
  get operationsAdmitted(): number {
    return this._rate.spent;
  }

  /** Holds one more open request, or throws beyond the limit; the returned function lets it go (once). */
  openRequest(method: string): () => void {
    return this.reserve(1, 'Too many open requests', method);
  }

  /**
   * Holds `count` more open requests at once (a 2026-07-28 `input_required` round is charged as
   * one), or throws without holding any when they do not all fit; the returned function lets them
   * all go (once).
   */
  reserve(count: number, what: string, method?: string): () => void {
    this.refuseBeyondLimit(what, method, count);
    this._openRequests += count;
    let open = true;
    return () => {
      if (open) this._openRequests -= count;
      open = false;
    };
  }

  /** Throws {@link LimitExceededError} when the live tasks and open requests (and `adding` more) are beyond the limit. */
  refuseBeyondLimit(what: string, method?: string, adding = 1): void {
    const limit = this._ledger.limits.maxLiveTasksPerServer;
    const live = this._live();
    if (live + this._openRequests + adding <= limit) return;
    const held = this._openRequests ? `${live} active tasks and ${this._openRequests} requests waiting for an answer` : String(live);
    const msg = `${what}: server "${this._server.serverName}" already has ${held} (limit ${limit}, setting mcpTasks.receiver.maxLiveTasksPerServer)${method ? `; ${method.slice(0, 100)} refused` : ''}`;
    this._audit.server('rejected', msg);
    throw new LimitExceededError(msg);
  }

  /** Charges one wire request; throws {@link LimitExceededError} when the budget is spent. */
  admit(operation: string): void {
    if (this._rate.take(this._ledger.now())) return;
    const limits = this._ledger.limits;
    const msg = `Rate limit exceeded for ${operation}: server "${this._server.serverName}" may make ${limits.operationsPerSecond} task operations per second (burst ${limits.operationsBurst}; setting mcpTasks.receiver.operationsPerSecond)`;
    this._audit.server('rejected', msg);
    throw new LimitExceededError(msg);
  }
}
