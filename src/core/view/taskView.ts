/**
 * One view of every task in both directions, for the tree, the status bar, the palette
 * commands and the result documents. Changes from the ledger (received) and the tracker
 * (sent) are coalesced into at most one `onDidChange` per interval, so a burst of status
 * changes costs one redraw.
 */
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import type { ReceivedTaskSnapshot, TaskLedger } from '../receiver/ledger.js';
import type { TaskTracker } from '../requestor/tracker.js';
import { TaskIndex } from './taskIndex.js';
import { receivedRowId, sentRowId } from './rowIds.js';
import { CausalLinks } from './causal.js';
import type { OpenRequestSnapshot, OpenRequests } from './openRequests.js';
import { isActive, receivedItem, requestItem, sentItem, type TaskViewItem, type TaskViewState } from './taskViewItem.js';

export * from './taskViewItem.js';
export interface TaskViewOptions {
  /** Minimum milliseconds between two `onDidChange` events (default 100 → at most 10 per second). */
  readonly coalesceMs?: number;
  /** The open plain requests (not tasks) servers sent, shown beside the received tasks. */
  readonly requests?: OpenRequests;
}

/** Merges the ledger and the tracker into {@link TaskViewItem}s, with coalesced change events. */
export class TaskView extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires at most once per `coalesceMs` after any change (leading and trailing edge). */
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private _timer?: NodeJS.Timeout;
  private _lastFire = -Infinity;
  private _pending = false;
  /** Every item, kept up to date from the changes named by the ledger's and tracker's events. */
  private _index?: TaskIndex;
  private readonly _dirtySent = new Set<string>();
  private readonly _dirtyReceived = new Map<string, readonly [serverId: string, taskId: string]>();
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
    super();
    this._coalesceMs = options.coalesceMs ?? 100;
    this._requests = options.requests;
    // First, so a received task is linked to its sent call before anything reads it.
    this.links = this._register(new CausalLinks(_ledger, _tracker, options.requests));
    this._register(
      _ledger.onDidChange((c) => {
        this._dirtyReceived.set(receivedRowId(c.serverId, c.taskId), [c.serverId, c.taskId]);
        this._changed();
      }),
    );
    this._register(
      _tracker.onDidChange((c) => {
        this._dirtySent.add(c.key);
        // A sent call that comes, goes or is named by its server can change which received requests nest under it.
        if (c.kind !== 'updated' || c.named) this._parentsChanged = true;
        this._changed();
      }),
    );
    if (options.requests) {
      this._register(
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
    return requestItem(r, parentKey !== undefined && this._tracker.get(parentKey) ? sentRowId(parentKey) : undefined);
  }

  /** A received task's view item, nested under its sent call when that call is still in the tracker. */
  private _receivedItem(r: ReceivedTaskSnapshot): TaskViewItem {
    const parentKey = this.links.parentKeyOf(r);
    return receivedItem(r, parentKey !== undefined && this._tracker.get(parentKey) ? sentRowId(parentKey) : undefined);
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
      else index.remove(sentRowId(key));
    }
    for (const [id, [serverId, taskId]] of this._dirtyReceived) {
      const r = this._ledger.tasksOf(serverId)?.get(taskId);
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

  override dispose(): void {
    // The trailing event is not fired: nothing is left to hear it.
    clearTimeout(this._timer);
    this._timer = undefined;
    super.dispose();
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
