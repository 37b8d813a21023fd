/**
 * A sent task's record (what is stored and shown of it), its snapshot, and the server id of a
 * task whose definition is gone.
 */
import { escapeIdPart } from '../config/config.js';
import type { StoredSentTask } from './trackerStore.js';
import type { SentTaskPhase, SentTaskSnapshot } from './trackerTypes.js';

/** A sent task as stored and shown: the stored form, nothing of the session (sentTask.ts holds that). */
export type SentRecord = StoredSentTask;

export const FINISHED_PHASES: ReadonlySet<SentTaskPhase> = new Set(['done', 'expired', 'error']);

/**
 * The server id of a task whose definition is not (or no longer) under its id: one per definition.
 * Like every server id it contains no `/`, and it starts with `#`, which no configured server's id
 * does (config.ts, assignUniqueIds): its task keys collide with no other server's.
 */
export function orphanServerId(rec: Pick<SentRecord, 'definitionKey' | 'serverId'>): string {
  return rec.definitionKey === undefined ? rec.serverId : `#orphan:${escapeIdPart(rec.definitionKey)}`;
}

export function toSnapshot(r: SentRecord): SentTaskSnapshot {
  let outcome: SentTaskSnapshot['outcome'];
  let reason = r.reason;
  try {
    outcome = r.outcome ? structuredClone(r.outcome) : undefined;
  } catch (e) {
    // Results are bounded where they arrive (connection/messageBounds.ts) and where they are
    // loaded; should one still not copy, this task shows without it and every other task shows
    // as ever: a snapshot of all tasks (the tree, the status bar, the API, chat tools) never throws.
    outcome = undefined;
    reason = `Its result cannot be shown (${e instanceof Error ? e.message : String(e)}).`;
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
    ...(r.finishedAt !== undefined && FINISHED_PHASES.has(r.phase) ? { finishedAt: r.finishedAt } : {}),
    polls: r.polls,
    resultFetches: r.resultFetches,
    wire: r.mode === 'task' ? (r.wire ?? '2025-11-25') : undefined,
    ...(r.sentTo ? { sentTo: r.sentTo.label } : {}),
    ...(r.originHold ? { originHold: { ...r.originHold } } : {}),
  };
}
