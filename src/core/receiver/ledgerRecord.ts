/**
 * A received task as the ledger keeps it, and the pure helpers over it (serverTasks.ts).
 */
import type { Result, Task } from '@modelcontextprotocol/client';
import { RELATED_TASK_META_KEY } from '../base/protocolErrors.js';
import { ErrorCode, ProtocolError, TaskNotFoundError } from '../base/errors.js';
import type { DisposableStore } from '../base/lifecycle.js';
import type { AuditEntry, ReceivedTaskSnapshot, TaskOutcome } from './ledgerTypes.js';
import { isoTime } from './ledgerCodec.js';
import { isTerminal, type TaskStatus } from '../base/taskState.js';
import type { WorkAbort } from './workAbort.js';

export interface TaskRecord {
  readonly taskId: string;
  readonly seq: number;
  readonly createdAt: number;
  readonly ttl: number;
  readonly expiresAt: number;
  readonly pollInterval: number;
  readonly method: string;
  status: TaskStatus;
  statusMessage?: string;
  lastUpdatedAt: number;
  /** `createdAt` and `lastUpdatedAt` as ISO strings, formatted once per change rather than per read. */
  readonly createdAtIso: string;
  lastUpdatedAtIso: string;
  title: string;
  waitingForUser: boolean;
  /** The server's task this request belongs to (`ReceivedTaskInfo.relatedTaskId`). */
  readonly relatedTaskId?: string;
  outcome?: TaskOutcome;
  audit: AuditEntry[];
  /** Present while the work runs; aborted by cancel/expiry, dropped at the end. */
  work?: { readonly controller: WorkAbort; readonly store: DisposableStore };
  removed: boolean;
  /** `tasks/result` requests waiting for this task to end (see {@link ServerTasks.whenTerminal}). */
  waiters?: Set<(end: WaitEnd) => void>;
}

/** How a wait for a task's end ended: the task is terminal, or it is gone. */
export type WaitEnd = 'terminal' | 'expired' | 'removed';

/** Ends every wait on `rec` (see {@link ServerTasks.whenTerminal}). */
export function wake(rec: TaskRecord, end: WaitEnd): void {
  const waiters = rec.waiters;
  if (!waiters) return;
  rec.waiters = undefined;
  for (const settle of waiters) settle(end);
}

/** What the SDK answers a `tasks/result` whose request was cancelled (never sent: the SDK drops it). */
export function requestCancelled(): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidRequest, 'Request cancelled');
}

export function toTask(rec: TaskRecord): Task {
  const t: Task = {
    taskId: rec.taskId,
    status: rec.status,
    ttl: rec.ttl,
    createdAt: rec.createdAtIso,
    lastUpdatedAt: rec.lastUpdatedAtIso,
    pollInterval: rec.pollInterval,
  };
  if (rec.statusMessage !== undefined) t.statusMessage = rec.statusMessage;
  return t;
}

/** Index of the first record with seq > `after` (records are in ascending seq order). */
export function firstIndexAfter(order: readonly TaskRecord[], after: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The related-task id in a request's params (R-META-1), if well-formed. */
export function relatedTaskIdIn(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const related = meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === 'string' && related.taskId.length <= 256 ? related.taskId : undefined;
}

export function titleFor(method: string, params: unknown): string {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === 'sampling/createMessage') return 'Sampling';
  if (method === 'elicitation/create') {
    const msg = typeof p.message === 'string' ? p.message.replace(/\s+/g, ' ').trim() : '';
    return `Elicitation: ${msg.length > 60 ? `${msg.slice(0, 57)}…` : msg}`;
  }
  return method;
}

export function isErrorResult(result: Result): boolean {
  return (result as { isError?: unknown }).isError === true;
}

export function failureMessage(outcome: TaskOutcome): string {
  if (outcome.kind === 'error') return outcome.message;
  const content = (outcome.result as { content?: Array<{ type?: string; text?: string }> }).content;
  const text = content?.find((c) => c.type === 'text')?.text;
  return text ? `Failed: ${text.slice(0, 200)}` : 'Failed';
}

/** A new `working` task's record (one object shape for every record: all fields from the start). */
export function newTaskRecord(taskId: string, seq: number, now: number, ttl: number, pollInterval: number, method: string, params: unknown): TaskRecord {
  const nowIso = isoTime(now);
  return {
    taskId,
    seq,
    createdAt: now,
    lastUpdatedAt: now,
    createdAtIso: nowIso,
    lastUpdatedAtIso: nowIso,
    ttl,
    expiresAt: now + ttl,
    pollInterval,
    method,
    status: 'working',
    title: titleFor(method, params),
    waitingForUser: false,
    relatedTaskId: relatedTaskIdIn(params),
    audit: [],
    removed: false,
  };
}

/**
 * R-RESULT-2: resolves once the task is terminal (at once if it is); rejects with -32602 when it
 * expires or is removed meanwhile, and with "Request cancelled" when `signal` aborts. One listener
 * on `signal` for the whole wait, removed when it ends.
 */
export function waitForEnd(rec: TaskRecord, signal: AbortSignal): Promise<void> {
  if (isTerminal(rec.status)) return Promise.resolve();
  if (signal.aborted) return Promise.reject(requestCancelled());
  const waiters = (rec.waiters ??= new Set());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      waiters.delete(settle);
      reject(requestCancelled());
    };
    const settle = (end: WaitEnd) => {
      signal.removeEventListener('abort', onAbort);
      if (end === 'terminal') resolve();
      else reject(new TaskNotFoundError(rec.taskId, end === 'expired' ? `its ttl passed while tasks/result waited` : 'removed while tasks/result waited'));
    };
    waiters.add(settle);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A copy of the record as the view and the API read it. */
export function snapshotOf(rec: TaskRecord, serverId: string, serverName: string): ReceivedTaskSnapshot {
  return {
    serverId,
    serverName,
    task: toTask(rec),
    info: { method: rec.method, title: rec.title, waitingForUser: rec.waitingForUser, ...(rec.relatedTaskId !== undefined ? { relatedTaskId: rec.relatedTaskId } : {}) },
    outcome: rec.outcome ? structuredClone(rec.outcome) : undefined,
    audit: rec.audit.map((a) => ({ ...a })),
  };
}
