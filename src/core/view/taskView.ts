/**
 * One view of every task in both directions, for the tree, the status bar, the palette
 * commands and the result documents. Changes from the ledger (received) and the tracker
 * (sent) are coalesced into at most one `onDidChange` per interval, so a burst of status
 * changes costs one redraw.
 */
import type { Task } from '@modelcontextprotocol/client';
import { Emitter, type Event } from '../base/event.js';
import { type IDisposable } from '../base/lifecycle.js';
import type { AuditEntry, TaskLedger, TaskOutcome } from '../receiver/ledger.js';
import type { TaskTracker } from '../requestor/tracker.js';
import { isTerminal, type TaskStatus } from '../base/taskState.js';
import type { ReceivedTaskSnapshot } from '../receiver/ledger.js';
import type { SentTaskSnapshot } from '../requestor/tracker.js';
import { TaskIndex } from './taskIndex.js';
import { CausalLinks } from './causal.js';
import type { OpenRequestSnapshot, OpenRequests } from './openRequests.js';

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

/** A task of either direction, as shown to the user (a copy). */
export interface TaskViewItem {
  /** `sent:<serverId>/<taskId>` or `received:<serverId>/<taskId>`. */
  readonly id: string;
  readonly direction: 'sent' | 'received';
  /** Sent: the requestor tracker's key of the call (what its actions take; taskActions.ts). */
  readonly key?: string;
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

export interface TaskViewOptions {
  /** Minimum milliseconds between two `onDidChange` events (default 100 → at most 10 per second). */
  readonly coalesceMs?: number;
  /** The open plain requests (not tasks) servers sent, shown beside the received tasks. */
  readonly requests?: OpenRequests;
}

/** Merges the ledger and the tracker into {@link TaskViewItem}s, with coalesced change events. */
export class TaskView implements IDisposable {
  private readonly _onDidChange = new Emitter<void>();
  /** Fires at most once per `coalesceMs` after any change (leading and trailing edge). */
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private readonly _subs: IDisposable[] = [];
  private _timer?: NodeJS.Timeout;
  private _lastFire = -Infinity;
  private _pending = false;
  /** Every item, kept up to date from the changes named by the ledger's and tracker's events. */
  private _index?: TaskIndex;
  private readonly _dirtySent = new Set<string>();
  private readonly _dirtyReceived = new Map<string, readonly [scopeId: string, taskId: string]>();
  private readonly _dirtyRequests = new Set<string>();
  private readonly _requests?: OpenRequests;
  private _fired = 0;
  /** A sent call came or went since the last sync: nesting may have changed, rebuild. */
  private _parentsChanged = false;
  /** Bumped when a received task is nested under another parent (or none). */
  private _nestingVersion = 0;
  /** Children per parent id; rebuilt on demand after any change. */
  private _children?: Map<string, TaskViewItem[]>;
  private readonly _coalesceMs: number;
  /** Which sent call each received task belongs to; settles orphans (causal.ts). */
  readonly links: CausalLinks;

  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _tracker: TaskTracker,
    options: TaskViewOptions = {},
  ) {
    this._coalesceMs = options.coalesceMs ?? 100;
    this._requests = options.requests;
    // First, so a received task is linked to its sent call before anything reads it.
    this.links = new CausalLinks(_ledger, _tracker, options.requests);
    this._subs.push(
      this.links,
      _ledger.onDidChange((c) => {
        this._dirtyReceived.set(`received:${c.scopeId}/${c.taskId}`, [c.scopeId, c.taskId]);
        this._changed();
      }),
      _tracker.onDidChange((c) => {
        this._dirtySent.add(c.key);
        // A sent call that comes or goes can change which received requests nest under it.
        if (c.kind !== 'updated') this._parentsChanged = true;
        this._changed();
      }),
    );
    if (options.requests) {
      this._subs.push(
        options.requests.onDidChange((c) => {
          this._dirtyRequests.add(c.id);
          this._changed();
        }),
      );
    }
  }

  /** How many change events were fired so far (the benchmark reads it). */
  get firedCount(): number {
    return this._fired;
  }

  /** Every task, newest first. */
  items(): TaskViewItem[] {
    return this._sync().all();
  }

  /** One task by id. */
  item(id: string): TaskViewItem | undefined {
    return this._sync().get(id);
  }

  /** The tasks of one server in one direction, newest first (a tree group). */
  group(serverId: string, direction: 'sent' | 'received'): readonly TaskViewItem[] {
    const items = this._sync().group(serverId, direction);
    // Requests nested under a sent call (causal.ts) are shown there, not in their group.
    return items.some((i) => i.parentId !== undefined) ? items.filter((i) => i.parentId === undefined) : items;
  }

  /** Ids of the servers that have tasks, in the order of their newest task. */
  serverIds(): string[] {
    return this._sync().serverIds();
  }

  /** Changes whenever tasks are added, removed, moved between groups or nested anew (not when one changes state). */
  get shapeVersion(): number {
    const index = this._sync();
    return index.shapeVersion * 1_000_003 + this._nestingVersion;
  }

  /** The received requests nested under a sent task (by its id), newest first. */
  childrenOf(parentId: string): readonly TaskViewItem[] {
    const index = this._sync();
    if (!this._children) {
      this._children = new Map();
      for (const i of index.all()) {
        if (i.parentId === undefined) continue;
        const list = this._children.get(i.parentId);
        if (list) list.push(i);
        else this._children.set(i.parentId, [i]);
      }
    }
    return this._children.get(parentId) ?? [];
  }

  /** An open plain request's view item, nested under its sent call when that call is still in the tracker. */
  private _requestItem(r: OpenRequestSnapshot): TaskViewItem {
    const parentKey = this.links.requestParentKey(r.id);
    return requestItem(r, parentKey !== undefined && this._tracker.get(parentKey) ? `sent:${parentKey}` : undefined);
  }

  /** A received task's view item, nested under its sent call when that call is still in the tracker. */
  private _receivedItem(r: ReceivedTaskSnapshot): TaskViewItem {
    const parentKey = this.links.parentKeyOf(r);
    return receivedItem(r, parentKey !== undefined && this._tracker.get(parentKey) ? `sent:${parentKey}` : undefined);
  }

  /** Applies the changes named since the last read: only those tasks are read again. */
  private _sync(): TaskIndex {
    const dirty = this._dirtySent.size + this._dirtyReceived.size + this._dirtyRequests.size;
    if (!this._index || this._parentsChanged || (dirty > 64 && dirty > this._index.size / 4)) {
      this._parentsChanged = false;
      this._children = undefined;
      this._dirtySent.clear();
      this._dirtyReceived.clear();
      this._dirtyRequests.clear();
      this._index ??= new TaskIndex();
      this._index.reset(this._build());
      return this._index;
    }
    if (!dirty) return this._index;
    this._children = undefined;
    const index = this._index;
    for (const key of this._dirtySent) {
      const s = this._tracker.get(key);
      if (s) index.upsert(sentItem(s));
      else index.remove(`sent:${key}`);
    }
    for (const [id, [scopeId, taskId]] of this._dirtyReceived) {
      const r = this._ledger.getScope(scopeId)?.get(taskId);
      if (r) {
        const item = this._receivedItem(r);
        if (index.get(id)?.parentId !== item.parentId) this._nestingVersion++;
        index.upsert(item);
      } else index.remove(id);
    }
    for (const id of this._dirtyRequests) {
      const r = this._requests?.get(id);
      if (r) {
        const item = this._requestItem(r);
        if (index.get(id)?.parentId !== item.parentId) this._nestingVersion++;
        index.upsert(item);
      } else index.remove(id);
    }
    this._dirtySent.clear();
    this._dirtyReceived.clear();
    this._dirtyRequests.clear();
    return index;
  }

  /**
   * The requests waiting for the user to answer them (received tasks and plain requests, nested
   * or not), newest first: the one list the view's badge, the status bar and "Respond…" read.
   */
  waitingForUser(): TaskViewItem[] {
    return this.items().filter((i) => i.state === 'waitingForUser');
  }

  /**
   * Counts per state, for the status bar. `active`: units of work under way (a sent call and the
   * requests nested under it count once); `waiting`: requests waiting for the user
   * ({@link waitingForUser}).
   */
  counts(): { active: number; waiting: number; byState: Record<TaskViewState, number>; byServer: Map<string, number> } {
    const byState = { queued: 0, sending: 0, running: 0, working: 0, waitingForUser: 0, inputRequired: 0, paused: 0, orphaned: 0, completed: 0, failed: 0, cancelled: 0, expired: 0, error: 0 };
    const byServer = new Map<string, number>();
    let active = 0;
    let waiting = 0;
    for (const i of this.items()) {
      byState[i.state]++;
      if (i.state === 'waitingForUser') waiting++;
      if (i.parentId || !isActive(i.state)) continue;
      active++;
      byServer.set(i.serverName, (byServer.get(i.serverName) ?? 0) + 1);
    }
    return { active, waiting, byState, byServer };
  }

  dispose(): void {
    if (this._timer) clearTimeout(this._timer);
    for (const s of this._subs) s.dispose();
    this._onDidChange.dispose();
  }

  private _changed(): void {
    if (this._pending) return;
    const now = performance.now();
    const wait = this._lastFire + this._coalesceMs - now;
    if (wait <= 0) {
      this._fire(now);
      return;
    }
    this._pending = true;
    this._arm(wait);
  }

  /**
   * Fires the trailing event after `wait` ms. Node measures a timer from the event loop's cached
   * time, so under load it can fire a few ms early; then it waits out the rest, keeping every
   * two events at least `coalesceMs` apart (≤ 10 per any second at the default 100 ms).
   */
  private _arm(wait: number): void {
    this._timer = setTimeout(() => {
      this._timer = undefined;
      const now = performance.now();
      const rest = this._lastFire + this._coalesceMs - now;
      if (rest > 0) {
        this._arm(rest);
        return;
      }
      this._pending = false;
      this._fire(now);
    }, wait);
    this._timer.unref?.();
  }

  private _fire(now: number): void {
    this._lastFire = now;
    this._fired++;
    this._onDidChange.fire();
  }

  private _build(): TaskViewItem[] {
    const items: TaskViewItem[] = [];
    for (const r of this._ledger.snapshot()) items.push(this._receivedItem(r));
    for (const s of this._tracker.snapshot()) items.push(sentItem(s));
    for (const r of this._requests?.snapshot() ?? []) items.push(this._requestItem(r));
    return items.sort((a, b) => b.createdAt - a.createdAt);
  }
}

function receivedItem(r: ReceivedTaskSnapshot, parentId: string | undefined): TaskViewItem {
  const state: TaskViewState = r.info.waitingForUser && !isTerminal(r.task.status) ? 'waitingForUser' : fromStatus(r.task.status);
  return {
    id: `received:${r.scopeId}/${r.task.taskId}`,
    direction: 'received',
    serverId: r.scopeId,
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

function sentItem(s: SentTaskSnapshot): TaskViewItem {
  return {
    id: `sent:${s.key}`,
    direction: 'sent',
    key: s.key,
    serverId: s.serverId,
    serverName: s.serverName,
    taskId: s.task?.taskId ?? s.key.slice(s.serverId.length + 1),
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

function requestItem(r: OpenRequestSnapshot, parentId: string | undefined): TaskViewItem {
  return {
    id: r.id,
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
