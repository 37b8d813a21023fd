/**
 * A sent task as the tracker keeps it (stored part + runtime state), its snapshot and stored
 * forms, and the tracker internals its modules (sending, polling, results, cancellation,
 * identity) work on.
 */
import type { Emitter } from '../base/event.js';
import { escapeIdPart } from '../config/config.js';
import type { McpConnection } from '../connection/connection.js';
import type { RequestScope } from './requestScope.js';
import type { StoredSentTask } from './trackerStore.js';
import type { TaskInline, TaskWire } from './wire/taskWire.js';
import type { SentTaskRemovalReason } from './removal.js';
import type { SentTaskChange, SentTaskPhase, SentTaskSnapshot, TrackerOptions } from './trackerTypes.js';

export interface LiveState {
  /** The session's requests, aborted together when tracking stops (requestScope.ts). */
  requests: RequestScope;
  connection: McpConnection;
  /** Tracking resumed after the server stopped or restarted: a task it no longer knows was lost with it, not expired. */
  resumedAfterPause?: boolean;
  timer?: NodeJS.Timeout;
  /** `tasks/result` in flight. */
  resultCall?: Promise<void>;
  /** A `tasks/result` retry waiting for its backoff. */
  resultRetry?: NodeJS.Timeout;
  resultFailures: number;
  failures: number;
  networkFailures: number;
  /** `tasks/get` requests in flight (their answers schedule the next poll). */
  polling: number;
  /** The task's `createdAt`, parsed (polling.ts; its ttl is checked on every answer). */
  createdAt?: { readonly text: string; readonly ms: number };
  /** `tasks/cancel` in flight. */
  cancelling?: Promise<void>;
  /** Settles when the creating `tools/call` has been answered (or failed). */
  created?: Promise<void>;
  /** 2026-07-28: the outstanding `inputRequests` of the latest update. */
  inputRequests?: TaskInline['inputRequests'];
  /** 2026-07-28: `inputRequests` keys presented to the user this session (each once across polls). */
  presentedInputs?: Set<string>;
  /** 2026-07-28: input requests presented and not yet settled. */
  openInputs?: number;
  /**
   * 2026-07-28: requests of the call's own `input_required` rounds being answered (before it is a
   * task): nothing of the call is on the wire meanwhile, so a Cancel abandons it at once.
   */
  answeringInputs: number;
  /** The call was abandoned by a Cancel during such a round. */
  abandonedWhileAnswering: boolean;
}

export interface SentRecord extends StoredSentTask {
  /** Runtime only: when the last `tasks/get` went out (this session), so a resume waits out the pollInterval. */
  lastPollAt?: number;
  live?: LiveState;
}

export const FINISHED_PHASES: ReadonlySet<SentTaskPhase> = new Set(['done', 'expired', 'error']);

/**
 * The server id of a task whose definition is not (or no longer) under its id: one per definition.
 * Like every server id it contains no `/`, and it starts with `#`, which no configured server's id
 * does (config.ts, assignUniqueIds): its task keys collide with no other server's.
 */
export function orphanServerId(rec: Pick<SentRecord, 'definitionKey' | 'serverId'>): string {
  return rec.definitionKey === undefined ? rec.serverId : `#orphan:${escapeIdPart(rec.definitionKey)}`;
}

/** The stored form of a record (no runtime state). */
export function stored(r: SentRecord): StoredSentTask {
  const { live: _live, lastPollAt: _lastPollAt, ...plain } = r;
  return plain;
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
  };
}

/**
 * What the tracker's modules (sending, polling, results, cancellation, identity, persistence)
 * share: the records and their events, and the steps that change a record's life (attach,
 * finish, drop…), implemented by the tracker. The modules call one another's functions directly;
 * nothing here routes a module back into another. Not for use outside src/core/requestor.
 */
export interface TrackerInternals {
  readonly _records: Map<string, SentRecord>;
  readonly _onDidChange: Emitter<SentTaskChange>;
  readonly _onDidPoll: Emitter<string>;
  readonly _now: () => number;
  readonly _options: TrackerOptions;
  _plainCounter: number;
  _wire(connection: McpConnection, rec?: SentRecord): TaskWire;
  _attach(rec: SentRecord, connection: McpConnection): LiveState;
  _changed(rec: SentRecord, kind?: SentTaskChange['kind'], from?: string): void;
  _connectionLost(connection: McpConnection): void;
  _detach(rec: SentRecord): void;
  _drop(rec: SentRecord, reason: SentTaskRemovalReason): void;
  _dropAll(recs: readonly SentRecord[], reason: SentTaskRemovalReason): void;
  _finish(rec: SentRecord, phase: SentTaskPhase, reason?: string): void;
  _pause(rec: SentRecord, reason: string): void;
  _require(key: string): SentRecord;
}
