/** Persistence of the requestor's sent tasks: loading them after a reload, and the bounds on how many are kept and for how long. */
import { DEFAULT_MAX_FINISHED_AGE_MS, DEFAULT_MAX_STORED_TASKS, readStoredTasks, type StoredSentTask } from './trackerStore.js';
import { FINISHED_PHASES, finishedAtOf, type SentRecord } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import type { SentTasks } from './sentTasks.js';
import { isUnfollowedListed } from './identity.js';
import { redactStoredSummary } from './trackerUtil.js';

/** Loads the stored tasks; what was in flight at the reload is paused (a task) or lost (a plain call). */
export function loadRecords(t: SentTasks): void {
  const storage = t.options.storage;
  if (!storage) return;
  t.keepStored();
  let raw: unknown;
  try {
    raw = storage.load();
  } catch {
    return; // unreadable storage: start empty rather than fail
  }
  const { tasks, dropped } = readStoredTasks(raw);
  if (dropped > 0) {
    try {
      storage.unreadable?.(dropped === 1 && tasks.length === 0 ? 'not stored sent tasks' : `${dropped} unreadable entr${dropped === 1 ? 'y' : 'ies'}`);
    } catch {
      /* keeping the original is best effort */
    }
  }
  let rewrite = false;
  for (const storedTask of tasks) {
    // Not a task yet: how it is kept is settled before one is made of it (sentTask.ts moves it from then on).
    const rec: StoredSentTask = { ...storedTask };
    // Earlier releases stored arguments in clear: scrubbed now, and written back scrubbed below.
    const argsSummary = redactStoredSummary(rec.argsSummary);
    if (argsSummary !== rec.argsSummary) {
      rec.argsSummary = argsSummary;
      rewrite = true;
    }
    // A listed task nobody opened stays as the last list showed it (identity.ts): it was never polled.
    if ((rec.phase === 'tracking' || rec.phase === 'sending' || rec.phase === 'queued') && !isUnfollowedListed(rec)) {
      if (endsWithWindow(rec)) {
        rec.phase = 'error';
        rec.reason = 'The window was reloaded while the call was in flight; its answer was lost.';
        // It ended with the old window: when that window closed (stamped by markWindowEnd), or,
        // when it could not say (it crashed), now — a clock that stops, never one that runs on.
        // Written back, or the next window would find it finished with no end.
        rec.finishedAt ??= t.now();
        rewrite = true;
      } else {
        rec.phase = 'paused';
        rec.reason = 'Waiting for the server to connect after a reload';
      }
    }
    t.restore(rec);
  }
  // Scrubbed, or ended by the reload: written back.
  if (rewrite) t.storedFormChanged();
  pruneRecords(t);
}

/** Whether a call in flight ends with its window: its answer comes on that window's connection (a plain call, or a task call not yet made a task). */
function endsWithWindow(rec: SentRecord): boolean {
  return rec.mode === 'plain' || rec.phase === 'sending' || !rec.task;
}

/**
 * The window is closing: the calls that end with it are stamped with this moment as their end
 * (`finishedAt`, read by loadRecords in the next window; their phase is left as it is, since this
 * window may still get an answer before it goes). Returns whether any was stamped.
 */
export function markWindowEnd(t: SentTasks): boolean {
  const now = t.now();
  let any = false;
  for (const sent of t.all()) {
    const rec = sent.record;
    if ((rec.phase === 'sending' || rec.phase === 'tracking') && endsWithWindow(rec) && !isUnfollowedListed(rec)) {
      rec.finishedAt = now;
      any = true;
    }
  }
  if (any) t.storedFormChanged();
  return any;
}

/**
 * Drops finished tasks older than `maxFinishedAgeMs` (reason `prunedByAge`), then the oldest
 * finished (then orphaned) tasks beyond `maxStoredTasks` (`prunedByCount`); running ones are
 * never dropped. One removal event per reason.
 */
export function pruneRecords(t: SentTasks, byAge = true): number {
  const maxAge = byAge ? (t.options.maxFinishedAgeMs?.() ?? DEFAULT_MAX_FINISHED_AGE_MS) : 0;
  let n = 0;
  if (maxAge > 0) {
    const now = t.now();
    const aged: SentTask[] = [];
    for (const sent of t.all()) if (FINISHED_PHASES.has(sent.record.phase) && finishedAtOf(sent.record) + maxAge <= now) aged.push(sent);
    t.drop(aged, 'prunedByAge');
    n += aged.length;
  }
  const max = Math.max(1, t.options.maxStoredTasks?.() ?? DEFAULT_MAX_STORED_TASKS);
  const excess = t.size - max;
  if (excess <= 0) return n;
  const finished = oldest(t, excess, (s) => FINISHED_PHASES.has(s.record.phase));
  const over = finished.length < excess ? [...finished, ...oldest(t, excess - finished.length, (s) => s.record.phase === 'orphaned')] : finished;
  t.drop(over, 'prunedByCount');
  return n + over.length;
}

/**
 * The `k` tasks `accepted` with the earliest `sentAt`, oldest first (ties in the order they are
 * kept). One pass for the usual few: a new call over the bound drops one, and sorting a copy of
 * every task for it was part of each call's CPU (bench: rev2026 host CPU per call).
 */
function oldest(t: SentTasks, k: number, accepted: (s: SentTask) => boolean): SentTask[] {
  if (t.inSentOrder) {
    const first: SentTask[] = [];
    for (const s of t.all()) if (accepted(s) && first.push(s) === k) break;
    return first;
  }
  if (k > 8) return [...t.all()].filter(accepted).sort((a, b) => a.record.sentAt - b.record.sentAt).slice(0, k);
  const out: SentTask[] = [];
  for (const s of t.all()) {
    if (!accepted(s)) continue;
    const at = s.record.sentAt;
    if (out.length === k && at >= out[k - 1]!.record.sentAt) continue;
    let i = out.length;
    while (i > 0 && out[i - 1]!.record.sentAt > at) i--;
    out.splice(i, 0, s);
    if (out.length > k) out.pop();
  }
  return out;
}
