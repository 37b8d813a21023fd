/**
 * The task view's index: every {@link TaskViewItem} by id, grouped by server and direction,
 * each group (and the whole list) newest first. Kept up to date one item at a time, so a status
 * change among 10,000 tasks costs a map update, not a rebuild and re-sort of everything (bench: surface getChildren,
 * the tree's largest group in ≤ 50 ms). Order only changes when a group gains or loses a task
 * (a task's `createdAt` never changes); then that group is sorted again on its next read.
 */
import type { TaskViewItem } from './taskView.js';

type Direction = TaskViewItem['direction'];

interface Entry {
  item: TaskViewItem;
  /** Tie-break among equal `createdAt`: higher first (later added = newer). */
  readonly seq: number;
}

interface Group {
  readonly entries: Map<string, Entry>;
  /** Newest first; undefined after a membership change until the next read. */
  sorted?: TaskViewItem[];
  /** Position of each id in `sorted`, to replace an updated item in place. */
  positions?: Map<string, number>;
}

const NONE: readonly TaskViewItem[] = Object.freeze([]);

function groupKey(serverId: string, direction: Direction): string {
  return `${direction}\n${serverId}`;
}

function newestFirst(a: Entry, b: Entry): number {
  return b.item.createdAt - a.item.createdAt || b.seq - a.seq;
}

function sortedItems(entries: Iterable<Entry>): { sorted: TaskViewItem[]; positions: Map<string, number> } {
  const list = [...entries].sort(newestFirst);
  const sorted = list.map((e) => e.item);
  const positions = new Map<string, number>();
  for (let i = 0; i < sorted.length; i++) positions.set(sorted[i]!.id, i);
  return { sorted, positions };
}

export class TaskIndex {
  private readonly _entries = new Map<string, Entry>();
  private readonly _groups = new Map<string, Group>();
  private _all?: TaskViewItem[];
  private _allPositions?: Map<string, number>;
  private _seq = 0;
  private _shapeVersion = 0;

  /** Changes whenever a group gains or loses a task (the order of what a tree shows), never on a mere update. */
  get shapeVersion(): number {
    return this._shapeVersion;
  }

  get size(): number {
    return this._entries.size;
  }

  /** Replaces everything with `items`, given newest first (their order breaks ties of `createdAt`). */
  reset(items: readonly TaskViewItem[]): void {
    this._entries.clear();
    this._groups.clear();
    this._all = undefined;
    this._allPositions = undefined;
    this._shapeVersion++;
    for (let i = items.length - 1; i >= 0; i--) this._add(items[i]!);
  }

  get(id: string): TaskViewItem | undefined {
    return this._entries.get(id)?.item;
  }

  /** Adds or replaces an item. */
  upsert(item: TaskViewItem): void {
    const entry = this._entries.get(item.id);
    if (!entry) {
      this._add(item);
      this._shapeVersion++;
      return;
    }
    const old = entry.item;
    if (old.serverId !== item.serverId || old.direction !== item.direction || old.createdAt !== item.createdAt) {
      this.remove(item.id);
      this._add(item);
      return;
    }
    entry.item = item;
    const group = this._groups.get(groupKey(item.serverId, item.direction));
    const at = group?.positions?.get(item.id);
    if (group?.sorted && at !== undefined) group.sorted[at] = item;
    const atAll = this._allPositions?.get(item.id);
    if (this._all && atAll !== undefined) this._all[atAll] = item;
  }

  remove(id: string): void {
    const entry = this._entries.get(id);
    if (!entry) return;
    this._entries.delete(id);
    const key = groupKey(entry.item.serverId, entry.item.direction);
    const group = this._groups.get(key);
    if (group) {
      group.entries.delete(id);
      group.sorted = undefined;
      group.positions = undefined;
      if (!group.entries.size) this._groups.delete(key);
    }
    this._all = undefined;
    this._allPositions = undefined;
    this._shapeVersion++;
  }

  /** Every item, newest first. */
  all(): TaskViewItem[] {
    if (!this._all) {
      const { sorted, positions } = sortedItems(this._entries.values());
      this._all = sorted;
      this._allPositions = positions;
    }
    return this._all;
  }

  /** The items of one server and direction, newest first. */
  group(serverId: string, direction: Direction): readonly TaskViewItem[] {
    const group = this._groups.get(groupKey(serverId, direction));
    if (!group) return NONE;
    if (!group.sorted) {
      const { sorted, positions } = sortedItems(group.entries.values());
      group.sorted = sorted;
      group.positions = positions;
    }
    return group.sorted;
  }

  /** Ids of the servers that have tasks, in the order of their newest task. */
  serverIds(): string[] {
    const ids = new Set<string>();
    for (const i of this.all()) ids.add(i.serverId);
    return [...ids];
  }

  private _add(item: TaskViewItem): void {
    const entry: Entry = { item, seq: ++this._seq };
    this._entries.set(item.id, entry);
    const key = groupKey(item.serverId, item.direction);
    let group = this._groups.get(key);
    if (!group) this._groups.set(key, (group = { entries: new Map() }));
    group.entries.set(item.id, entry);
    group.sorted = undefined;
    group.positions = undefined;
    this._all = undefined;
    this._allPositions = undefined;
  }
}
