/**
 * A sent task's record (what is stored and shown of it), its snapshot, and the server id of a
 * task whose definition is gone.
 */
import { sharedJson } from '../base/jsonCopy.js';
import { escapeIdPart } from '../config/config.js';
import type { StoredSentTask } from './trackerStore.js';
import { FINISHED_PHASES, type SentTaskPhase, type SentTaskSnapshot } from './trackerTypes.js';
import { droppedSentence } from './keptQuestion.js';

/**
 * A sent task as stored and shown: the stored form, nothing of the session (sentTask.ts holds that).
 * Its key is fixed when it is made, and its phase is its {@link SentTask}'s to move (sentTask.ts
 * `moveTo`, each move checked there): both read-only here.
 */
export type SentRecord = Omit<StoredSentTask, 'key' | 'phase'> & { readonly key: string; readonly phase: SentTaskPhase };

export { FINISHED_PHASES } from './trackerTypes.js';

/**
 * The server id of a task whose definition is not (or no longer) under its id: one per definition.
 * Like every server id it contains no `/`, and it starts with `#`, which no configured server's id
 * does (config.ts, assignUniqueIds): its task keys collide with no other server's.
 */
export function orphanServerId(rec: Pick<SentRecord, 'definitionKey' | 'serverId'>): string {
  return rec.definitionKey === undefined ? rec.serverId : `#orphan:${escapeIdPart(rec.definitionKey)}`;
}

/**
 * When a finished task ended, on this host's clock: its recorded `finishedAt` (set the moment it
 * finished here: completed, failed, expired, lost, or lost with a reload). A record stored by a
 * release that did not record it has no better witness than the server's last change of its task
 * (`lastUpdatedAt`), else when it was sent: those stay fixed, where nothing would keep its clock running.
 */
export function finishedAtOf(rec: Pick<SentRecord, 'finishedAt' | 'task' | 'sentAt'>): number {
  if (rec.finishedAt !== undefined) return rec.finishedAt;
  const updated = rec.task ? Date.parse(rec.task.lastUpdatedAt) : NaN;
  return Number.isFinite(updated) ? updated : rec.sentAt;
}

export function toSnapshot(r: SentRecord): SentTaskSnapshot {
  let outcome: SentTaskSnapshot['outcome'];
  let reason = r.reason;
  try {
    // Frozen once and shared by every snapshot after (jsonCopy.ts): nothing changes a stored outcome in place.
    outcome = r.outcome ? sharedJson(r.outcome) : undefined;
  } catch (e) {
    // Results are bounded where they arrive (connection/messageBounds.ts) and where they are
    // loaded; should one still not copy, this task shows without it and every other task shows
    // as ever: a snapshot of all tasks (the tree, the status bar, the API, chat tools) never throws.
    outcome = undefined;
    reason = `Its result cannot be shown (${e instanceof Error ? e.message : String(e)}).`;
  }
  // A question the server went on without: the row says so whatever else its reason says (keptQuestion.ts).
  if (r.questionDropped) {
    const dropped = droppedSentence(r.serverName, r.questionDropped);
    reason = reason ? `${reason} ${dropped}` : dropped;
  }
  return {
    key: r.key,
    serverId: r.serverId,
    serverName: r.serverName,
    definitionKey: r.definitionKey,
    toolName: r.toolName,
    argsSummary: r.argsSummary,
    mode: r.mode,
    origin: r.origin,
    ...(r.startedBy ? { startedBy: r.startedBy } : {}),
    sentAt: r.sentAt,
    phase: r.phase,
    reason,
    task: r.task ? { ...r.task } : undefined,
    progress: r.progress ? { ...r.progress } : undefined,
    outcome,
    cancelRequested: r.cancelRequested,
    cancelledInQueue: r.cancelledInQueue,
    cancelledByUser: r.cancelledByUser,
    ...(FINISHED_PHASES.has(r.phase) ? { finishedAt: finishedAtOf(r) } : {}),
    polls: r.polls,
    resultFetches: r.resultFetches,
    wire: r.mode === 'task' ? (r.wire ?? '2025-11-25') : undefined,
    ...(r.sentTo ? { sentTo: r.sentTo.label } : {}),
    ...(r.originHold ? { originHold: { ...r.originHold } } : {}),
    ...(r.questionDropped ? { questionDropped: { ...r.questionDropped } } : {}),
  };
}
