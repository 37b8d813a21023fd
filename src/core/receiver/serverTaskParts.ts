/**
 * Pure parts of a server's received tasks (serverTasks.ts): one `tasks/list` page over its tasks in
 * creation order (R-LIST-1..3), the bounded audit trail of a task (R-SEC-4), and the counter
 * that flags a burst of failed task lookups (R-SEC-4).
 */
import type { Task } from '@modelcontextprotocol/client';
import type { AuditEntry } from './ledgerTypes.js';
import { firstIndexAfter, toTask, type TaskRecord } from './ledgerRecord.js';

/** Audit lines kept per task: the first (its creation) and the latest ones. */
export const MAX_AUDIT_ENTRIES = 50;

/**
 * Up to `pageSize` visible tasks (not removed, not expired at `now`) after sequence number
 * `after`, in creation order; `lastSeq` is the last one's (the next cursor), `more` whether any
 * visible task follows.
 */
export function listPage(order: readonly TaskRecord[], after: number, now: number, pageSize: number): { tasks: Task[]; lastSeq: number; more: boolean } {
  const tasks: Task[] = [];
  let lastSeq = after;
  let i = firstIndexAfter(order, after);
  for (; i < order.length && tasks.length < pageSize; i++) {
    const rec = order[i]!;
    if (rec.removed || rec.expiresAt <= now) continue;
    tasks.push(toTask(rec));
    lastSeq = rec.seq;
  }
  // Is there anything visible after the page?
  let more = false;
  for (; i < order.length; i++) {
    const rec = order[i]!;
    if (!rec.removed && rec.expiresAt > now) {
      more = true;
      break;
    }
  }
  return { tasks, lastSeq, more };
}

/** Appends an audit line, keeping the first and the latest {@link MAX_AUDIT_ENTRIES} - 1. */
export function appendAudit(audit: AuditEntry[], entry: AuditEntry): void {
  audit.push(entry);
  if (audit.length > MAX_AUDIT_ENTRIES) audit.splice(1, audit.length - MAX_AUDIT_ENTRIES);
}

/** Counts failed task lookups per minute; {@link note} names the count once it reaches the burst. */
export class FailedLookupCounter {
  private _count = 0;
  private _windowStart = 0;

  constructor(
    readonly burst = 20,
    readonly windowMs = 60_000,
  ) {}

  /** Counts one failed lookup at `now`; returns the count when it is exactly the burst (once per window). */
  note(now: number): number | undefined {
    if (now - this._windowStart > this.windowMs) {
      this._windowStart = now;
      this._count = 0;
    }
    this._count++;
    return this._count === this.burst ? this._count : undefined;
  }
}

/** The ttl a new task gets: the requested one, capped at `maxTtlMs`; the default when none was asked for (R-SEC-2). */
export function grantedTtl(requested: number | null | undefined, limits: { readonly defaultTtlMs: number; readonly maxTtlMs: number }): number {
  if (requested === undefined) return Math.min(limits.defaultTtlMs, limits.maxTtlMs);
  if (requested === null || !Number.isFinite(requested) || requested > limits.maxTtlMs) return limits.maxTtlMs;
  return Math.max(0, Math.floor(requested));
}
