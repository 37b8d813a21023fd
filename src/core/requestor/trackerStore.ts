/**
 * Persistence of the requestor's sent tasks (workspace storage in VS Code): the stored shape,
 * reading it back from this and older versions, and a saver that writes at most once per
 * interval and only when something worth keeping changed.
 *
 * Version 3 stores one JSON string, put together from each task's cached JSON: a change
 * serialises only the tasks it touched, and VS Code's Memento passes a string through as it is,
 * where it deep-copies an object value through JSON on every `update` (1,000 stored
 * tasks cost ~26 ms per change that way). Versions 1 and 2 (an object) are still read.
 */
import type { StoredRecord } from './storedTasks.js';
import type { Task } from '@modelcontextprotocol/client';
import type { IDisposable } from '../base/lifecycle.js';
import type { TaskOutcome } from '../base/taskOutcome.js';

export { DEFAULT_MAX_FINISHED_AGE_MS, DEFAULT_MAX_STORED_TASKS } from '../config/limits.js';

/** A result larger than this (JSON characters) is not stored; Retrieve Result fetches it again. */
export const MAX_STORED_OUTCOME_CHARS = 256 * 1024;
/** Smallest time between two writes. */
export const DEFAULT_SAVE_INTERVAL_MS = 1000;

/**
 * One write of {@link ThrottledSaver} to a storage that keeps changes (fileStorage.ts): each task
 * as its stored JSON, in order, and what changed since the previous write that succeeded.
 */
export interface StoredChanges {
  /** Every stored task's JSON, in order. */
  readonly all: readonly string[];
  /** The JSON of each task added or changed since the previous write. */
  readonly put: readonly string[];
  /** Keys of the tasks gone since the previous write. */
  readonly removed: readonly string[];
  /** No previous write is known to have been stored (the first write, or one after a failure): store `all`. */
  readonly first: boolean;
}

/** Where sent tasks are kept across reloads. */
export interface TrackerStorage {
  /** What was stored (a version 3 string, or a version 1–3 object envelope), or undefined. */
  load(): unknown;
  /** Stores everything, as one version 3 string. */
  save(data: string): void | PromiseLike<void>;
  /** If present, used instead of {@link save}: stores what changed (a storage that can append). */
  saveChanges?(changes: StoredChanges): void | PromiseLike<void>;
  /**
   * What {@link load} returned could not be read, wholly or in part (`reason`): called before
   * anything is written over it, so a storage that can keep the original does (fileStorage.ts).
   */
  unreadable?(reason: string): void;
}

/** The version {@link ThrottledSaver} writes. */
export const STORED_VERSION = 3;

/** One stored sent task. */
export interface StoredSentTask extends Omit<StoredRecord, 'task' | 'outcome'> {
  task?: Task;
  outcome?: TaskOutcome;
}

/**
 * Reads stored sent tasks: this version (3, a JSON string), version 2 (the same envelope as an
 * object) or version 1 (keyed by server id only: its records come without `definitionKey` and
 * are adopted by the definition holding that id). Anything unreadable is dropped, record by
 * record, and a result nested deeper than a message from a server may be is left out; never throws.
 * The checks (storedTasks.ts, zod/mini) are in the part of the checks (scripts/lib/lazyParts.mjs:
 * `dist/checks.js`), never the protocol part: nothing stored, nothing evaluated.
 */
export function readStoredTasks(raw: unknown): { tasks: StoredSentTask[]; dropped: number } {
  if (raw === undefined || raw === null || isEmptyStore(raw)) return { tasks: [], dropped: 0 };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return (require('./storedTasks.js') as typeof import('./storedTasks.js')).validStoredTasks(raw);
}

/**
 * The file's envelope with no task in it: what a window leaves once its tasks were cleared or pruned. Nothing to
 * check, so nothing of the part of the checks is evaluated for it (bench: start-up, a later window).
 */
function isEmptyStore(raw: unknown): boolean {
  // Kept in the workspace state (a folder not on disk), the envelope is a JSON string; an empty one is short.
  if (typeof raw === 'string' && raw.length <= EMPTY_STORE_TEXT_MAX) {
    try {
      raw = JSON.parse(raw);
    } catch {
      return false;
    }
  }
  const envelope = raw as { version?: unknown; tasks?: unknown } | null;
  return typeof envelope === 'object' && envelope !== null && envelope.version === STORED_VERSION && Array.isArray(envelope.tasks) && envelope.tasks.length === 0;
}

/** Longer than any empty envelope's text (`{"version":3,"tasks":[]}`, with room for spaces). */
const EMPTY_STORE_TEXT_MAX = 64;

const outcomeSizes = new WeakMap<object, number>();

/** The stored form of a task: a result too large to keep is left out (and marked so). */
function storable(t: StoredSentTask): StoredSentTask {
  const o = t.outcome;
  if (!o) return t;
  let size = outcomeSizes.get(o);
  if (size === undefined) {
    try {
      size = JSON.stringify(o).length;
    } catch {
      size = Infinity;
    }
    outcomeSizes.set(o, size);
  }
  if (size <= MAX_STORED_OUTCOME_CHARS) return t;
  const { outcome: _dropped, ...rest } = t;
  return { ...rest, outcomeDropped: true };
}

/**
 * Writes the sent tasks through {@link TrackerStorage}: `schedule()` after a change writes once
 * `intervalMs` after the previous write (at most one write per interval), and only if the stored
 * content differs from the last write, diagnostics counters (`polls`) aside — so a task being
 * polled costs no writes while nothing about it changes. `flush()` writes now (deactivation).
 */
export class ThrottledSaver<T extends { readonly key: string } = StoredSentTask> implements IDisposable {
  private _timer?: NodeJS.Timeout;
  private _lastWriteAt = -Infinity;
  /**
   * Per task key, as last written (undefined: nothing written yet): its stored form without
   * `polls` as JSON (to tell a change worth a write), and with it (its part of the stored string).
   */
  private _written?: Map<string, { readonly rest: string; readonly json: string }>;
  /** Keys changed since the last write; `all`: re-read every task (a task went or moved). */
  private _dirty: Set<string> | 'all' = 'all';
  private _disposed = false;
  /** Writes made so far (tests and diagnostics). */
  writes = 0;

  constructor(
    private readonly _storage: TrackerStorage,
    /** The tasks to store, in order; each is turned into its stored form only when it changed. */
    private readonly _collect: () => Iterable<T>,
    private readonly _toStored: (t: T) => StoredSentTask = (t) => t as unknown as StoredSentTask,
    private readonly _intervalMs: number = DEFAULT_SAVE_INTERVAL_MS,
    private readonly _now: () => number = Date.now,
  ) {}

  /**
   * Something changed (the task under `key`, or anything when no key is given): write it once the
   * interval since the last write has passed. Only the named tasks are serialised again to decide
   * whether anything worth storing changed, not every stored task.
   */
  schedule(key?: string): void {
    if (key === undefined) this._dirty = 'all';
    else if (this._dirty !== 'all') this._dirty.add(key);
    if (this._disposed || this._timer) return;
    const wait = Math.max(0, this._lastWriteAt + this._intervalMs - this._now());
    this._timer = setTimeout(() => {
      this._timer = undefined;
      void this._write();
    }, wait);
    this._timer.unref?.();
  }

  /** Writes pending changes now; resolves when stored. */
  flush(): Promise<void> {
    if (this._timer) clearTimeout(this._timer);
    this._timer = undefined;
    return this._write();
  }

  /** Writes pending changes and stops. */
  dispose(): Promise<void> {
    const p = this.flush();
    this._disposed = true;
    return p;
  }

  private _write(): Promise<void> {
    if (this._disposed) return Promise.resolve();
    const previous = this._written;
    const dirty = this._dirty;
    const written = new Map<string, { rest: string; json: string }>();
    const parts: string[] = [];
    const put: string[] = [];
    let changed = !previous;
    try {
      for (const source of this._collect()) {
        const before = previous?.get(source.key);
        if (before !== undefined && dirty !== 'all' && !dirty.has(source.key)) {
          written.set(source.key, before);
          parts.push(before.json);
          continue;
        }
        const { polls, ...rest } = storable(this._toStored(source));
        const restJson = JSON.stringify(rest);
        // `rest` is an object with a key, so its JSON ends with "}": add `polls` as the last field.
        const entry = { rest: restJson, json: `${restJson.slice(0, -1)},"polls":${polls}}` };
        written.set(source.key, entry);
        parts.push(entry.json);
        if (restJson !== before?.rest) changed = true;
        if (entry.json !== before?.json) put.push(entry.json);
      }
    } catch {
      return Promise.resolve(); // stays dirty: the next write tries again
    }
    this._dirty = new Set();
    if (previous && previous.size !== written.size) changed = true;
    if (!changed) return Promise.resolve();
    const removed: string[] = [];
    if (previous) for (const key of previous.keys()) if (!written.has(key)) removed.push(key);
    this._written = written;
    this._lastWriteAt = this._now();
    this.writes++;
    const failed = () => {
      // Not stored after all: the next change writes again, whatever it is.
      if (this._written === written) this._written = undefined;
    };
    try {
      const storage = this._storage;
      const saved = storage.saveChanges ? storage.saveChanges({ all: parts, put, removed, first: !previous }) : storage.save(`{"version":${STORED_VERSION},"tasks":[${parts.join(',')}]}`);
      return Promise.resolve(saved).then(() => undefined, failed);
    } catch {
      /* storage failures must not break tracking */
      failed();
      return Promise.resolve();
    }
  }
}
