/** Persistence of sent tasks: loading them after a reload, and the bound on how many are kept. */
import { DEFAULT_MAX_STORED_TASKS, readStoredTasks } from './trackerStore.js';
import { FINISHED_PHASES, type SentRecord, type TrackerInternals } from './sentRecord.js';

/** Loads the stored tasks; what was in flight at the reload is paused (a task) or lost (a plain call). */
export function loadRecords(t: TrackerInternals): void {
  const storage = t._options.storage;
  if (!storage) return;
  let raw: unknown;
  try {
    raw = storage.load();
  } catch {
    return; // unreadable storage: start empty rather than fail
  }
  for (const storedTask of readStoredTasks(raw).tasks) {
    const rec: SentRecord = { ...storedTask };
    if (rec.phase === 'tracking' || rec.phase === 'sending' || rec.phase === 'queued') {
      if (rec.mode === 'plain' || rec.phase === 'sending' || !rec.task) {
        rec.phase = 'error';
        rec.reason = 'The window was reloaded while the call was in flight; its answer was lost.';
      } else {
        rec.phase = 'paused';
        rec.reason = 'Waiting for the server to connect after a reload';
      }
    }
    t._records.set(rec.key, rec);
  }
  t._prune();
}

/** Drops the oldest finished (then orphaned) tasks beyond `maxStoredTasks`; running ones are never dropped. */
export function pruneRecords(t: TrackerInternals): number {
  const max = Math.max(1, t._options.maxStoredTasks?.() ?? DEFAULT_MAX_STORED_TASKS);
  if (t._records.size <= max) return 0;
  const oldestFirst = (a: SentRecord, b: SentRecord) => a.sentAt - b.sentAt;
  const candidates = [
    ...[...t._records.values()].filter((r) => FINISHED_PHASES.has(r.phase)).sort(oldestFirst),
    ...[...t._records.values()].filter((r) => r.phase === 'orphaned').sort(oldestFirst),
  ];
  let n = 0;
  for (const rec of candidates) {
    if (t._records.size <= max) break;
    t._drop(rec);
    n++;
  }
  return n;
}
