/**
 * Which start failures an earlier window already announced, so that a reload does not announce
 * the same one again: a broken stdio entry (`spawn … ENOENT`) brought its error back on every
 * reload. A failure is the same when the definition is unchanged (its fingerprint: file, name and
 * content) and the cause reads the same; an edit of the entry, or another cause, is new. Within a
 * window only the first failure after the reload is kept quiet: a later one (the user's Retry or
 * Start) is announced as usual. The row, the status bar and the log still show it every time.
 */

/** Where the keys are kept across windows (the workspace's state). */
export interface FailureMemoryStore {
  get(): readonly string[];
  set(keys: readonly string[]): unknown;
}

/** The workspace-state key the extension keeps them under. */
export const FAILURE_MEMORY_STATE_KEY = 'mcpTasks.announcedFailures';

/** At most this many failures are remembered (the most recent): a key costs a few dozen bytes. */
export const MAX_REMEMBERED_FAILURES = 50;

export class FailureMemory {
  /** Announced by an earlier window and not met again yet in this one. */
  private readonly _earlier: Set<string>;

  constructor(private readonly _store: FailureMemoryStore) {
    this._earlier = new Set(this._stored());
  }

  /** The stored keys; anything else there (an older format, a hand edit) is dropped. */
  private _stored(): string[] {
    const kept: unknown = this._store.get();
    return Array.isArray(kept) ? kept.filter((k): k is string => typeof k === 'string') : [];
  }

  /** Whether to announce this failure; remembers it for the next window either way. */
  shouldAnnounce(fingerprint: string, cause: string): boolean {
    // JSON: no fingerprint/cause pair can spell another.
    const key = JSON.stringify([fingerprint, cause]);
    const announcedBefore = this._earlier.delete(key);
    const keys = this._stored().filter((k) => k !== key);
    keys.push(key);
    void this._store.set(keys.slice(-MAX_REMEMBERED_FAILURES));
    return !announcedBefore;
  }
}
