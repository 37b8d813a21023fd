/**
 * Sent tasks kept in a file of the workspace's extension storage folder (`context.storageUri`
 * in VS Code) rather than in the workspace Memento.
 *
 * Why: VS Code's extension-host Memento sends the whole memento (every key) to the main process
 * as one JSON message on every `update`, and rewriting 1,000 stored results anywhere costs about
 * as much (the join and the UTF-8 encoding of ~1.5 MB): ~8–12 ms of extension-host CPU per
 * change. So the file is a journal, one JSON value per line:
 *
 *     {"mcpTasksSentTasks":1}              the header
 *     {"key":"s/t1",…}                     a task as stored (trackerStore.ts), newest line wins
 *     {"removed":"s/t1"}                   a task that is gone
 *
 * A change appends the changed tasks' lines (and removals): its cost does not grow with the
 * number of stored tasks. When the lines appended since the file was last written whole exceed
 * the number of tasks (at least {@link MIN_APPENDS_BEFORE_REWRITE}), the next write replaces the
 * file with one line per task: `<file>.tmp` written, then renamed over it, so a crash mid-write
 * leaves the previous file whole. Writes run one at a time, in order.
 *
 * - `load()` reads the file synchronously, as the Memento's `get` is: the tracker's load, and so
 *   the resuming of paused tasks, stay as they were. A missing file falls back to the Memento
 *   value of earlier releases (`legacy`), cleared after the first write of the file.
 * - A last line cut short (a crash during an append) is ignored and the file rewritten whole on
 *   the next write. Any other line that cannot be read makes the tracker call `unreadable`: the
 *   file is renamed aside (`<name>.unreadable-<time>.json`) before anything is written over it,
 *   and the user is told through `onProblem`.
 */
import { readFileSync, renameSync } from 'node:fs';
import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { STORED_VERSION, type StoredChanges, type TrackerStorage } from './trackerStore.js';

/** The file name in the storage folder. */
export const SENT_TASKS_FILE = 'sent-tasks.json';
/** The file's first line (the bench writes a window's kept tasks with it). */
export const SENT_TASKS_HEADER = '{"mcpTasksSentTasks":1}';
/** Appended lines allowed before a rewrite, however few tasks there are. */
export const MIN_APPENDS_BEFORE_REWRITE = 64;

export interface FileTrackerStorageOptions {
  /** Absolute path of the file (its folder is created on the first write). */
  readonly file: string;
  /** Where earlier releases kept the sent tasks: read when the file does not exist yet, cleared after the first write. */
  readonly legacy?: { load(): unknown; clear(): void | PromiseLike<void> };
  /** A problem for the user (never thrown): an unreadable file set aside (`read`), a failed write (`write`). */
  readonly onProblem?: (message: string, kind: 'read' | 'write') => void;
}

export interface FileTrackerStorage extends TrackerStorage {
  /** Where the sent tasks are kept. */
  readonly file: string;
  /** Whole-file writes and appends so far (tests and the bench). */
  readonly counts: { rewrites: number; appends: number };
}

interface Parsed {
  readonly envelope: { version: number; tasks: unknown[] };
  /** Lines after the header (each one a task or a removal). */
  readonly lines: number;
  readonly torn: boolean;
}

/** Reads the journal: the newest line per task wins, removals drop; unreadable lines become unreadable entries. */
function parse(text: string): Parsed | undefined {
  const lines = text.split('\n');
  if (lines[0] !== SENT_TASKS_HEADER) return undefined;
  const tasks = new Map<string, unknown>();
  const bad: unknown[] = [];
  let torn = false;
  let count = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    count++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // The last line without its newline: an append cut short.
      if (i === lines.length - 1) torn = true;
      else bad.push(line);
      continue;
    }
    const v = value as { key?: unknown; removed?: unknown } | null;
    if (v && typeof v === 'object' && typeof v.removed === 'string') tasks.delete(v.removed);
    else if (v && typeof v === 'object' && typeof v.key === 'string') tasks.set(v.key, value);
    else bad.push(value);
  }
  // Unreadable lines are handed on as entries, so the tracker counts them (and calls `unreadable`).
  return { envelope: { version: STORED_VERSION, tasks: [...tasks.values(), ...bad] }, lines: count, torn };
}

export function fileTrackerStorage(options: FileTrackerStorageOptions): FileTrackerStorage {
  const { file, legacy, onProblem } = options;
  const counts = { rewrites: 0, appends: 0 };
  let legacyToClear = false;
  let loadedFromFile = false;
  let folderMade = false;
  /** Lines after the header now in the file; undefined: not known to match what the tracker wrote (rewrite). */
  let linesInFile: number | undefined;
  let queue: Promise<void> = Promise.resolve();

  const setAside = (reason: string): void => {
    const aside = join(dirname(file), `${basename(file, '.json')}.unreadable-${Date.now()}.json`);
    try {
      renameSync(file, aside);
      onProblem?.(`${file} could not be read (${reason}); it was kept as ${aside}.`, 'read');
    } catch (e) {
      onProblem?.(`${file} could not be read (${reason}) nor set aside (${errorText(e)}).`, 'read');
    }
    linesInFile = undefined;
  };

  const rewrite = async (all: readonly string[]): Promise<void> => {
    if (!folderMade) {
      await mkdir(dirname(file), { recursive: true });
      folderMade = true;
    }
    const tmp = `${file}.tmp`;
    await writeFile(tmp, all.length ? `${SENT_TASKS_HEADER}\n${all.join('\n')}\n` : `${SENT_TASKS_HEADER}\n`, 'utf8');
    await rename(tmp, file);
    counts.rewrites++;
    linesInFile = all.length;
    if (legacyToClear) {
      legacyToClear = false;
      try {
        await legacy?.clear();
      } catch {
        /* the old copy stays; the file is read first anyway */
      }
    }
  };

  const write = async (c: StoredChanges): Promise<void> => {
    const appended = c.put.length + c.removed.length;
    if (c.first || linesInFile === undefined || linesInFile + appended > Math.max(MIN_APPENDS_BEFORE_REWRITE, 2 * c.all.length)) return rewrite(c.all);
    if (appended === 0) return;
    let text = '';
    for (const json of c.put) text += `${json}\n`;
    for (const key of c.removed) text += `${JSON.stringify({ removed: key })}\n`;
    await appendFile(file, text, 'utf8');
    counts.appends++;
    linesInFile += appended;
  };

  const enqueue = (c: StoredChanges): Promise<void> => {
    const done = queue.then(() => write(c));
    queue = done.catch((e: unknown) => {
      // Whatever the file holds now, the next write replaces it whole.
      linesInFile = undefined;
      onProblem?.(`could not write ${file}: ${errorText(e)}`, 'write');
    });
    return done;
  };

  return {
    file,
    counts,
    load(): unknown {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          // No file yet (or not even its folder): an earlier release's value, if any.
          const old = legacy?.load();
          legacyToClear = old !== undefined;
          return old;
        }
        setAside(errorText(e));
        return undefined;
      }
      loadedFromFile = true;
      legacyToClear = legacy?.load() !== undefined;
      const parsed = parse(text);
      if (!parsed) return text; // not a journal: the tracker finds it unreadable and calls `unreadable`
      linesInFile = parsed.torn ? undefined : parsed.lines;
      return parsed.envelope;
    },
    unreadable(reason: string): void {
      // The tracker read the file but not (all of) it as sent tasks: keep the original.
      if (loadedFromFile) setAside(reason);
    },
    save(data: string): Promise<void> {
      // Everything as one version 3 string (the tracker uses `saveChanges`): written whole.
      let tasks: string[];
      try {
        tasks = (JSON.parse(data) as { tasks: unknown[] }).tasks.map((t) => JSON.stringify(t));
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
      return enqueue({ all: tasks, put: tasks, removed: [], first: true });
    },
    saveChanges: enqueue,
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
