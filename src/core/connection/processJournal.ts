/**
 * The server processes this window started, written down so the next window can stop those the
 * last one left behind. A window reload or a crashed extension host does not always get to stop
 * its stdio servers; each runs in a process group of its own, so it outlives the window until its
 * stdin's end reaches it — some servers take a minute, some never. At start the journal stops
 * every process group a window that is gone left in it, after checking on Linux (`/proc`) that the
 * process is still the program that was started (a pid can be reused); elsewhere it leaves them.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

const EntrySchema = z.object({
  pid: z.number().int().positive(),
  /** The window (extension host process) that started it. */
  owner: z.number().int().positive(),
  /** The program and its arguments, as `/proc/<pid>/cmdline` shows them (NUL-separated). */
  cmdline: z.string().max(64 * 1024),
});
const JournalSchema = z.array(EntrySchema).max(1_000);
type Entry = z.infer<typeof EntrySchema>;

/** How long a process group gets after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

export interface ProcessJournalDeps {
  /** Whether a process is alive (signal 0). */
  readonly alive?: (pid: number) => boolean;
  /** `/proc/<pid>/cmdline`, or undefined where there is no such file. */
  readonly cmdlineOf?: (pid: number) => string | undefined;
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
  readonly self?: number;
}

export class ProcessJournal {
  private readonly _alive: (pid: number) => boolean;
  private readonly _cmdlineOf: (pid: number) => string | undefined;
  private readonly _kill: (pid: number, signal: NodeJS.Signals) => void;
  private readonly _self: number;

  constructor(
    private readonly _file: string,
    deps: ProcessJournalDeps = {},
  ) {
    this._alive = deps.alive ?? isAlive;
    this._cmdlineOf = deps.cmdlineOf ?? readCmdline;
    this._kill = deps.kill ?? ((pid, signal) => process.kill(pid, signal));
    this._self = deps.self ?? process.pid;
  }

  /** A server process this window started (its group bears its pid). */
  started(pid: number, command: string, args: readonly string[]): void {
    this._write([...this._read().filter((e) => e.pid !== pid), { pid, owner: this._self, cmdline: [command, ...args].join('\0') }]);
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
    const entries = this._read();
    const stopped: number[] = [];
    const kept: Entry[] = [];
    for (const e of entries) {
      if (e.owner !== this._self && this._alive(e.owner)) {
        kept.push(e);
        continue;
      }
      if (!this._alive(e.pid)) continue;
      const now = this._cmdlineOf(e.pid);
      // Not provably the same program (no /proc, or the pid was reused): leave it alone.
      if (now === undefined || now.replace(/\0$/, '') !== e.cmdline) continue;
      this._signalGroup(e.pid, 'SIGTERM');
      stopped.push(e.pid);
      const timer = setTimeout(() => {
        if (this._alive(e.pid) && this._cmdlineOf(e.pid)?.replace(/\0$/, '') === e.cmdline) this._signalGroup(e.pid, 'SIGKILL');
      }, KILL_GRACE_MS);
      timer.unref?.();
    }
    this._write(kept);
    return stopped;
  }

  private _signalGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      this._kill(process.platform === 'win32' ? pid : -pid, signal);
    } catch {
      // gone meanwhile
    }
  }

  private _read(): Entry[] {
    try {
      const parsed = JournalSchema.safeParse(JSON.parse(readFileSync(this._file, 'utf8')));
      return parsed.success ? parsed.data : [];
    } catch {
      return [];
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

function readCmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}
