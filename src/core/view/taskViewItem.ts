/**
 * A row of the task view: its type and state, what the user can do with it, and how one is made
 * from a sent call, a received task or an open plain request (taskView.ts keeps them current).
 */
import type { Task } from '@modelcontextprotocol/client';
import { isTerminal, type TaskStatus } from '../base/taskState.js';
import type { AuditEntry, ReceivedTaskSnapshot, TaskOutcome } from '../receiver/ledger.js';
import type { SentTaskSnapshot } from '../requestor/tracker.js';
import type { OpenRequestSnapshot } from './openRequests.js';
import { receivedRowId, sentRowId, type RowKind } from './rowIds.js';

/** What the user can do with a task right now; drives `contextValue` and the palette. */
export type TaskViewState =
  /** Sent task waiting for a free slot under its server's concurrency limit (not sent yet). */
  | 'queued'
  /** Sent, waiting for the server to take it (a task call: its CreateTaskResult not yet there). */
  | 'sending'
  /** A plain (non-task) call under way: sent, its answer not yet there. */
  | 'running'
  | 'working'
  /** Received task waiting for the user (consent, a form). */
  | 'waitingForUser'
  /** Sent task the server needs input for (`input_required`). */
  | 'inputRequired'
  /** Sent task whose server is disconnected. */
  | 'paused'
  /** Sent task whose server definition is no longer configured (Dismiss forgets it). */
  | 'orphaned'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'expired'
  | 'error';

/**
 * A row of either direction, as shown to the user (a copy). Its `kind` says who keeps it, and so
 * where its actions go (taskActions.ts): a switch on `kind`, never a guess from which fields are set.
 */
export type TaskViewItem = SentTaskViewItem | ReceivedTaskViewItem | RequestViewItem;

/** A call this window sent (a task, or a plain call answered directly): the requestor tracker's. */
export interface SentTaskViewItem extends TaskViewRow {
  readonly kind: 'sent';
  readonly direction: 'sent';
  /** The requestor tracker's key of the call (what its actions take). */
  readonly key: string;
}

/** A task a server asked of this window (task-augmented sampling or elicitation): the ledger's. */
export interface ReceivedTaskViewItem extends TaskViewRow {
  readonly kind: 'received';
  readonly direction: 'received';
}

/** A plain request (no task) a server sent, open until answered or withdrawn: the open-request list's. */
export interface RequestViewItem extends TaskViewRow {
  readonly kind: 'request';
  readonly direction: 'received';
  readonly mode: 'plain';
}

/** What every row has, whatever its kind. */
interface TaskViewRow {
  /** Built by rowIds.ts: `sent:<key>`, `received:<serverId>/<taskId>` or `request:<serverId>/<localId>`. */
  readonly id: string;
  readonly kind: RowKind;
  /** The tree's group: Sent, or Received (received tasks and plain requests alike). */
  readonly direction: 'sent' | 'received';
  readonly serverId: string;
  readonly serverName: string;
  /** The task id on the wire (plain calls: a local id). */
  readonly taskId: string;
  readonly title: string;
  readonly state: TaskViewState;
  readonly task?: Task;
  readonly createdAt: number;
  readonly progress?: { readonly progress: number; readonly total?: number; readonly message?: string };
  readonly detail?: string;
  readonly outcome?: TaskOutcome;
  readonly audit?: readonly AuditEntry[];
  readonly origin?: 'local' | 'listed';
  /** `chat`: a sent task the chat agent started (language-model tools). */
  readonly startedBy?: 'chat';
  readonly argsSummary?: string;
  /** `plain`: not a task — a sent tool call answered directly, or a received request that is no task (openRequests.ts). */
  readonly mode?: 'task' | 'plain';
  /** When it ended (ms), for a finished one whose end the task does not say (a plain call). */
  readonly endedAt?: number;
  /** The task wire of a sent task: `2025-11-25`, or `2026-07-28` (the MCP Tasks extension). */
  readonly wire?: string;
  /** Received: the id (`sent:…`) of the sent task it belongs to, shown under it (see causal.ts). */
  readonly parentId?: string;
  /** Received: the request's method (`sampling/createMessage`, `elicitation/create`); the UI names its kind in the user's language. */
  readonly method?: string;
}

/** How a task wire is named to the user. */
export function wireLabel(wire: string | undefined): string | undefined {
  if (wire === undefined) return undefined;
  return wire === '2026-07-28' ? '2026-07-28 (Tasks extension io.modelcontextprotocol/tasks)' : `${wire} (core tasks)`;
}

/** Whether the user can still cancel it. */
export function isCancellable(s: TaskViewState): boolean {
  switch (s) {
    case 'queued':
    case 'sending':
    case 'running':
    case 'working':
    case 'waitingForUser':
    case 'inputRequired':
    case 'paused':
      return true;
    case 'orphaned':
    case 'completed':
    case 'failed':
    case 'cancelled':
    case 'expired':
    case 'error':
      return false;
  }
}

/** Whether it is finished (terminal or given up). An orphaned task is neither: it cannot be reached. */
export function isFinished(s: TaskViewState): boolean {
  return s !== 'orphaned' && !isCancellable(s);
}

/** Whether it can only be dismissed (forgotten locally): its server is no longer configured. */
export function isDismissable(s: TaskViewState): boolean {
  return s === 'orphaned';
}

/**
 * `contextValue` of a task row: its direction, state and the actions that apply, matched by the
 * `when` clauses of package.json's `view/item/context` menus (`cancellable`, `finished`,
 * `retrievable`, `respondable`, `dismissable`).
 */
export function taskContextValue(i: TaskViewItem): string {
  const flags = ['mcpTask', i.direction, i.state];
  if (isCancellable(i.state)) flags.push('cancellable');
  if (isFinished(i.state)) flags.push('finished');
  if (isFinished(i.state) && (i.outcome || i.task)) flags.push('retrievable');
  // A call waiting for input is answered through the request under it (Respond opens that one).
  if (i.state === 'waitingForUser' || i.state === 'inputRequired') flags.push('respondable');
  if (isDismissable(i.state)) flags.push('dismissable');
  return flags.join(' ');
}

/** Whether it counts as active for the status bar. */
export function isActive(s: TaskViewState): boolean {
  return s === 'queued' || s === 'sending' || s === 'running' || s === 'working' || s === 'waitingForUser' || s === 'inputRequired';
}

function fromStatus(status: TaskStatus): TaskViewState {
  switch (status) {
    case 'working':
      return 'working';
    case 'input_required':
      return 'inputRequired';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

function sentState(s: Pick<SentTaskSnapshot, 'phase' | 'task' | 'outcome' | 'cancelledInQueue' | 'cancelledByUser' | 'mode'>): TaskViewState {
  const { phase, task, outcome } = s;
  if (s.cancelledInQueue) return 'cancelled';
  switch (phase) {
    case 'queued':
      return 'queued';
    case 'sending':
      // A plain call has no later phase: once sent, it runs until its answer comes.
      return s.mode === 'plain' ? 'running' : 'sending';
    case 'tracking':
      return task ? fromStatus(task.status) : 'working';
    case 'paused':
      return 'paused';
    case 'orphaned':
      return 'orphaned';
    case 'expired':
      return 'expired';
    case 'error':
      return 'error';
    case 'done':
      if (task) return fromStatus(task.status);
      // A plain call: its outcome decides.
      if (!outcome) return 'completed';
      if (outcome.kind === 'error') return s.cancelledByUser ? 'cancelled' : 'failed';
      return (outcome.result as { isError?: boolean }).isError ? 'failed' : 'completed';
  }
}

export function receivedItem(r: ReceivedTaskSnapshot, parentId: string | undefined): ReceivedTaskViewItem {
  const state: TaskViewState = r.info.waitingForUser && !isTerminal(r.task.status) ? 'waitingForUser' : fromStatus(r.task.status);
  return {
    id: receivedRowId(r.serverId, r.task.taskId),
    kind: 'received',
    direction: 'received',
    serverId: r.serverId,
    serverName: r.serverName,
    taskId: r.task.taskId,
    title: r.info.title,
    method: r.info.method,
    state,
    task: r.task,
    createdAt: Date.parse(r.task.createdAt),
    detail: r.task.statusMessage,
    outcome: r.outcome,
    audit: r.audit,
    ...(parentId !== undefined ? { parentId } : {}),
  };
}

export function sentItem(s: SentTaskSnapshot): SentTaskViewItem {
  return {
    id: sentRowId(s.key),
    kind: 'sent',
    direction: 'sent',
    key: s.key,
    serverId: s.serverId,
    serverName: s.serverName,
    // The key's local part (no server id contains a `/`); the key keeps the server id it was made under, whatever `serverId` is now.
    taskId: s.task?.taskId ?? s.key.slice(s.key.indexOf('/') + 1),
    title: s.toolName,
    state: sentState(s),
    task: s.task,
    createdAt: s.sentAt,
    progress: s.progress,
    detail: s.reason ?? s.task?.statusMessage,
    outcome: s.outcome,
    origin: s.origin,
    ...(s.startedBy ? { startedBy: s.startedBy } : {}),
    argsSummary: s.argsSummary,
    mode: s.mode,
    wire: s.wire,
    ...(s.finishedAt !== undefined ? { endedAt: s.finishedAt } : {}),
  };
}

export function requestItem(r: OpenRequestSnapshot, parentId: string | undefined): RequestViewItem {
  return {
    id: r.id,
    kind: 'request',
    direction: 'received',
    serverId: r.serverId,
    serverName: r.serverName,
    taskId: r.localId,
    title: r.title,
    method: r.method,
    state: r.waitingForUser ? 'waitingForUser' : 'working',
    createdAt: r.createdAt,
    detail: r.statusMessage,
    mode: 'plain',
    ...(parentId !== undefined ? { parentId } : {}),
  };
}
