/**
 * The sent tasks the API knows, shared by every consumer's API object: a stable random id per
 * task (its URI) over the tracker's key (which never changes while the task is kept), the owner
 * (an API object's private token), the caller's hint and priority. A task that leaves the tracker
 * (dismissed, pruned) is "no longer kept": its entry stays as a tombstone so a handle can say so.
 */
import { randomUUID } from 'node:crypto';
import type { McpTaskHint, McpTaskPriority } from '../../../api/mcp-tasks';
import { Emitter } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import type { TaskTracker } from '../requestor/tracker.js';
import { TaskApiError } from './apiErrors.js';
import { taskUri } from './taskUris.js';

export interface DirectoryEntry {
  readonly id: string;
  /** The URI's server part (the server's name when the task was first seen). */
  readonly server: string;
  readonly uri: string;
  /** The tracker key now; undefined once the task is no longer kept. */
  key: string | undefined;
  /** The API object that created it (its private token); undefined for tasks sent otherwise. */
  owner?: symbol;
  priority: McpTaskPriority;
  hint: McpTaskHint;
  /** Set once the task is no longer kept. */
  removed?: TaskApiError;
}

export interface DirectoryChange {
  readonly entry: DirectoryEntry;
  readonly kind: 'updated' | 'removed';
}

/** Most tombstones kept (oldest forgotten first: their handles then say `not_found`). */
const MAX_TOMBSTONES = 1000;

export class TaskDirectory extends Disposable {
  private readonly _byId = new Map<string, DirectoryEntry>();
  private readonly _byKey = new Map<string, DirectoryEntry>();
  private readonly _tombstones: string[] = [];
  private readonly _pendingRemoval = new Set<DirectoryEntry>();
  private readonly _onDidChange = this._register(new Emitter<DirectoryChange>());
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly _tracker: TaskTracker) {
    super();
    this._register(
      _tracker.onDidChange((e) => {
        const entry = this._byKey.get(e.key);
        if (!entry || entry.key !== e.key) return;
        if (e.kind === 'removed') {
          // Settled once the current change is through (a handle reading it meanwhile still finds it).
          this._pendingRemoval.add(entry);
          queueMicrotask(() => this._settleRemoval(entry, e.key));
          return;
        }
        this._onDidChange.fire({ entry, kind: 'updated' });
      }),
    );
  }

  /** Registers a task created through the API (its tracker key as first added). */
  register(key: string, server: string, owner: symbol, priority: McpTaskPriority, hint: McpTaskHint): DirectoryEntry {
    const listed = this._byKey.get(key);
    if (listed && !listed.owner) {
      // Listed (a watcher saw it) between the tracker adding it and this call: the same task.
      Object.assign(listed, { owner, priority, hint });
      return listed;
    }
    const id = randomUUID();
    const entry: DirectoryEntry = { id, server, uri: taskUri(server, 'sent', id), key, owner, priority, hint };
    this._byId.set(id, entry);
    this._byKey.set(key, entry);
    return entry;
  }

  /** The entry of a tracker key, created for tasks sent otherwise (tree, Run Tool…, other windows). */
  forKey(key: string, server: string): DirectoryEntry {
    const known = this._byKey.get(key);
    if (known) return known;
    const id = randomUUID();
    const entry: DirectoryEntry = { id, server, uri: taskUri(server, 'sent', id), key, priority: 'normal', hint: {} };
    this._byId.set(id, entry);
    this._byKey.set(key, entry);
    return entry;
  }

  byId(id: string): DirectoryEntry | undefined {
    return this._byId.get(id);
  }

  private _settleRemoval(entry: DirectoryEntry, key: string): void {
    if (!this._pendingRemoval.delete(entry) || entry.key !== key || this._tracker.get(key)) return;
    this._byKey.delete(key);
    entry.key = undefined;
    if (!entry.owner) {
      this._byId.delete(entry.id);
      return;
    }
    entry.removed = new TaskApiError('pruned', `Task ${entry.uri} is no longer kept: it was dismissed or pruned (its state and result are gone).`);
    this._tombstones.push(entry.id);
    if (this._tombstones.length > MAX_TOMBSTONES) this._byId.delete(this._tombstones.shift()!);
    this._onDidChange.fire({ entry, kind: 'removed' });
  }
}
