/**
 * The server processes this window started, written down so the next window can stop those the
 * last one left behind. A window reload or a crashed extension host does not always get to stop
 * its stdio servers; each runs in a process group of its own, so it outlives the window until its
 * stdin's end reaches it — some servers take a minute, some never. At start the journal stops
 * every process group a window that is gone left in it, but only a process that is provably the
 * very one that was started: a pid is reused, and a reused pid may well run the same command (a
 * second window starting the same server). So each entry is bound to the process instance — its
 * pid and its start time, read at spawn (Linux: `/proc/<pid>/stat` field 22, clock ticks since
 * boot, with the boot id, so a reboot does not match either) — and at clean-up anything whose start
 * time differs, cannot be read, or was never recorded (an entry of an earlier release; macOS and
 * Windows, where no start time is read) is left alone and said so in the log.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ProcessJournalEntry } from './processJournalEntries.js';

type Entry = ProcessJournalEntry;

/** How long a process group gets after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

export interface ProcessJournalDeps {
  /** Whether a process is alive (signal 0). */
  readonly alive?: (pid: number) => boolean;
  /** `/proc/<pid>/cmdline`, or undefined where there is no such file. */
  readonly cmdlineOf?: (pid: number) => string | undefined;
  /** Which process runs under a pid now (boot and start time, {@link readInstance}), or undefined where that cannot be read. */
  readonly instanceOf?: (pid: number) => string | undefined;
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
  readonly self?: number;
  /** Where a leftover that is left alone is told of (why it was not stopped). */
  readonly log?: (message: string) => void;
}

export class ProcessJournal {
  private readonly _alive: (pid: number) => boolean;
  private readonly _cmdlineOf: (pid: number) => string | undefined;
  private readonly _instanceOf: (pid: number) => string | undefined;
  private readonly _kill: (pid: number, signal: NodeJS.Signals) => void;
  private readonly _self: number;
  private readonly _log: (message: string) => void;

  constructor(
    private readonly _file: string,
    deps: ProcessJournalDeps = {},
  ) {
    this._alive = deps.alive ?? isAlive;
    this._cmdlineOf = deps.cmdlineOf ?? readCmdline;
    this._instanceOf = deps.instanceOf ?? readInstance;
    this._kill = deps.kill ?? ((pid, signal) => process.kill(pid, signal));
    this._self = deps.self ?? process.pid;
    this._log = deps.log ?? (() => undefined);
  }

  /**
   * A server process this window started (its group bears its pid), called as soon as it is
   * spawned: its start time is read now, while the pid is surely still that process's.
   */
  started(pid: number, command: string, args: readonly string[]): void {
    const instance = this._instanceOf(pid);
    const entry: Entry = { pid, owner: this._self, cmdline: [command, ...args].join('\0'), ...(instance !== undefined ? { instance } : {}) };
    this._write([...this._read().filter((e) => e.pid !== pid), entry]);
  }

  /** It ended (or was stopped). */
  ended(pid: number): void {
    const entries = this._read();
    const left = entries.filter((e) => e.pid !== pid);
    if (left.length !== entries.length) this._write(left);
  }

  /**
   * Stops what windows that are gone left running; returns their pids. Entries of windows still
   * alive (another window of this workspace) are kept.
   */
  stopLeftovers(): number[] {
    const { entries, damaged } = this._readJournal();
    const stopped: number[] = [];
    const kept: Entry[] = [];
    for (const e of entries) {
      if (e.owner !== this._self && this._alive(e.owner)) {
        kept.push(e);
        continue;
      }
      if (!this._alive(e.pid)) continue;
      // Not provably the process that was started: left alone (and written off), said why.
      const doubt = this._doubt(e);
      if (doubt) {
        this._log(`Process ${e.pid} (${e.cmdline.split('\0')[0]}), left by a window that is gone, was not stopped: ${doubt}.`);
        continue;
      }
      this._signalGroup(e.pid, 'SIGTERM');
      stopped.push(e.pid);
      const timer = setTimeout(() => {
        if (this._alive(e.pid) && !this._doubt(e)) this._signalGroup(e.pid, 'SIGKILL');
      }, KILL_GRACE_MS);
      timer.unref?.();
    }
    // Written only when something was written off or the file was not a journal: an empty journal stays as it is.
    if (damaged || kept.length !== entries.length) this._write(kept);
    return stopped;
  }

  /** Why the live process under `e.pid` may not be the one `e` recorded; undefined when it surely is. */
  private _doubt(e: Entry): string | undefined {
    if (e.instance === undefined) return 'its start time was not recorded (an earlier release, or a system where it is not read), so a process that reused its pid cannot be told apart';
    const now = this._instanceOf(e.pid);
    if (now === undefined) return 'its start time cannot be read now';
    if (now !== e.instance) return 'the pid now belongs to another process (its start time differs)';
    if (this._cmdlineOf(e.pid)?.replace(/\0$/, '') !== e.cmdline) return 'it no longer runs the command that was started';
    return undefined;
  }

  private _signalGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      this._kill(process.platform === 'win32' ? pid : -pid, signal);
    } catch {
      // gone meanwhile
    }
  }

  private _read(): Entry[] {
    return this._readJournal().entries;
  }

  /** The journal's entries; `damaged` when a file is there that is not a journal (it starts empty, written again). */
  private _readJournal(): { entries: Entry[]; damaged: boolean } {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(this._file, 'utf8'));
    } catch (e) {
      return { entries: [], damaged: (e as NodeJS.ErrnoException).code !== 'ENOENT' };
    }
    // An empty journal is what every window leaves once its servers ended: nothing to check, so nothing of the
    // protocol part is evaluated for it (bench: start-up, a later window; it evaluated the SDK at every activation after a workspace's first).
    if (Array.isArray(value) && value.length === 0) return { entries: [], damaged: false };
    try {
      // The entries are checked (zod) in the protocol part (scripts/lib/lazyParts.mjs), evaluated only when there are entries to read.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
      const entries = (require('./processJournalEntries.js') as typeof import('./processJournalEntries.js')).validJournalEntries(value);
      return { entries, damaged: entries.length === 0 };
    } catch {
      // The check could not be loaded (the part is missing or broken): the file is not known to be damaged, so it is
      // kept as it is for a window that can read it, not written over with nothing.
      return { entries: [], damaged: false };
    }
  }

  private _write(entries: readonly Entry[]): void {
    try {
      mkdirSync(dirname(this._file), { recursive: true });
      writeFileSync(this._file, JSON.stringify(entries));
    } catch {
      // A journal that cannot be written costs only the clean-up after a reload.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let bootId: string | undefined;

/**
 * Which process runs under `pid` now, as `<boot id>/<start time>`: the start time is field 22 of
 * `/proc/<pid>/stat` (clock ticks since boot; it does not change over the process's life, and
 * no two processes with one pid share it within a boot), the boot id tells boots apart. Undefined
 * where there is no `/proc` (macOS, Windows) or the process is gone.
 */
export function readInstance(pid: number): string | undefined {
  try {
    bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so fields count from the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[22 - 3];
    return bootId && start && /^\d+$/.test(start) ? `${bootId}/${start}` : undefined;
  } catch {
    return undefined;
  }
}

function readCmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}
