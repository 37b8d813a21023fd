/**
 * One stdio server the host owns: its process (its own process group, as a window's direct spawn),
 * its pipes, and who it talks to now — a window attached, or nobody, while what it writes is
 * buffered (at most `maxBufferBytes`; over that it is ended, `buffer-full`) and a grace timer runs
 * (no window back in time: it is ended, `grace-expired`). A window that comes back gets the buffer.
 *
 * The host reads the JSON-RPC ids only to keep one session whole across windows: the next window's
 * requests are numbered after the last window's (`nextRequestId`), and an answer to a request of a
 * window that is gone is dropped rather than handed to the next one, which never asked it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineReader, MAX_SERVER_LINE_BYTES, type EndReason, type SpawnSpec } from './frames.js';
import { TurnWrites } from '../base/turnWrites.js';

/** How long a process gets to exit after its stdin closes, and again after SIGTERM. */
const STOP_GRACE_MS = 2_000;

/** What the host tells the window attached to a server. */
export interface ServerPeer {
  out(serverId: string, line: string): void;
  err(serverId: string, line: string): void;
  exit(serverId: string, reason: EndReason): void;
}

type Buffered = { readonly stream: 'out' | 'err'; readonly line: string };

/** Who the server talks to now. */
type Attachment =
  | { readonly kind: 'attached'; readonly peer: ServerPeer }
  | { readonly kind: 'detached'; readonly buffer: Buffered[]; bytes: number; readonly timer: NodeJS.Timeout };

export interface HostedServerOptions {
  readonly serverId: string;
  readonly spec: SpawnSpec;
  readonly fingerprint: string;
  readonly maxBufferBytes: number;
  /** Told once, when the process has ended (after the attached window was told). */
  readonly ended: (server: HostedServer, reason: EndReason) => void;
}

export class HostedServer {
  private _child?: ChildProcess;
  private _attachment: Attachment;
  private _endReason?: EndReason;
  private _ended = false;
  /** Ids of requests the attached window sent that the server has not answered yet. */
  private _inFlight = new Set<string>();
  /** Ids of requests of windows that are gone: their answers are dropped. */
  private readonly _orphaned = new Set<string>();
  private _maxRequestId = -1;
  /** Lines to the server's stdin, a turn of the event loop at a time (a burst of polls is one write). */
  private readonly _stdinWrites = new TurnWrites((text) => {
    const stdin = this._child?.stdin;
    if (stdin && !stdin.destroyed && !stdin.writableEnded) stdin.write(text);
  });

  constructor(
    private readonly _options: HostedServerOptions,
    peer: ServerPeer,
  ) {
    this._attachment = { kind: 'attached', peer };
  }

  get serverId(): string {
    return this._options.serverId;
  }

  get fingerprint(): string {
    return this._options.fingerprint;
  }

  get pid(): number {
    return this._child?.pid ?? -1;
  }

  get ended(): boolean {
    return this._ended;
  }

  /** The number the next window's first request takes: after every request id a window used. */
  get nextRequestId(): number {
    return this._maxRequestId + 1;
  }

  /** Starts the process; rejects when it cannot be spawned (the program is not found, say). */
  start(): Promise<number> {
    const { spec } = this._options;
    return new Promise((resolve, reject) => {
      const child = spawn(spec.command, spec.args, {
        env: spec.env,
        cwd: spec.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Its own process group, so stopping it stops what it started too.
        detached: process.platform !== 'win32',
      });
      this._child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve(child.pid ?? -1);
      });
      child.on('error', (e) => {
        if (!spawned) {
          this._ended = true;
          reject(e);
        }
      });
      const stdout = new LineReader(
        () => MAX_SERVER_LINE_BYTES,
        (line) => this._stdout(line),
        () => this._end({ kind: 'oversized', limitBytes: MAX_SERVER_LINE_BYTES }),
      );
      const stderr = new LineReader(
        () => 64 * 1024,
        (line) => this._emit('err', line),
        () => undefined,
      );
      child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.stdin?.on('error', () => undefined);
      child.once('close', (code, signal) => {
        if (!spawned) return;
        this._ended = true;
        const reason = this._endReason ?? { kind: 'exited', code, signal };
        const attachment = this._attachment;
        if (attachment.kind === 'detached') clearTimeout(attachment.timer);
        else attachment.peer.exit(this.serverId, reason);
        this._options.ended(this, reason);
      });
    });
  }

  /** A line from the attached window to the server's stdin. */
  write(line: string): void {
    this._noteRequest(line);
    if (this._ended) return;
    this._stdinWrites.write(`${line}\n`);
  }

  /** `peer` is now the window the server talks to; what was buffered meanwhile is given to it, in order. */
  attach(peer: ServerPeer): void {
    const before = this._attachment;
    this._attachment = { kind: 'attached', peer };
    if (before.kind === 'detached') {
      clearTimeout(before.timer);
      for (const b of before.buffer) (b.stream === 'out' ? peer.out : peer.err).call(peer, this.serverId, b.line);
    }
  }

  /** Whether `peer` is the window attached now. */
  isAttachedTo(peer: ServerPeer): boolean {
    return this._attachment.kind === 'attached' && this._attachment.peer === peer;
  }

  /** No window now: what the server writes is buffered, and it is ended unless a window attaches within `graceMs`. */
  detach(graceMs: number): void {
    if (this._attachment.kind === 'detached' || this._ended) return;
    for (const id of this._inFlight) this._orphaned.add(id);
    this._inFlight = new Set();
    const timer = setTimeout(() => this._end({ kind: 'grace-expired', graceMs }), graceMs);
    this._attachment = { kind: 'detached', buffer: [], bytes: 0, timer };
  }

  /** Ends the process (stdin closed, then SIGTERM, then SIGKILL to its group), for `reason`. Resolves once it exited. */
  stop(reason: EndReason = { kind: 'stopped' }): Promise<void> {
    return this._end(reason);
  }

  private _end(reason: EndReason): Promise<void> {
    const child = this._child;
    if (!child || this._ended || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    this._endReason ??= reason;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    return (async () => {
      try {
        this._stdinWrites.flush();
        child.stdin?.end();
      } catch {
        // closed already
      }
      if (await within(STOP_GRACE_MS)) return this._killGroup('SIGTERM');
      this._killGroup('SIGTERM');
      if (await within(STOP_GRACE_MS)) return;
      this._killGroup('SIGKILL');
      await exited;
    })();
  }

  private _killGroup(signal: NodeJS.Signals): void {
    const pid = this._child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this._child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // the group is gone
    }
  }

  private _stdout(line: string): void {
    const answered = responseId(line);
    if (answered !== undefined) {
      this._inFlight.delete(answered);
      // The answer to a request of a window that is gone: the next window never asked it.
      if (this._orphaned.delete(answered)) return;
    }
    this._emit('out', line);
  }

  private _emit(stream: 'out' | 'err', line: string): void {
    const attachment = this._attachment;
    if (attachment.kind === 'attached') {
      (stream === 'out' ? attachment.peer.out : attachment.peer.err).call(attachment.peer, this.serverId, line);
      return;
    }
    attachment.bytes += Buffer.byteLength(line) + 1;
    if (attachment.bytes > this._options.maxBufferBytes) {
      attachment.buffer.length = 0;
      void this._end({ kind: 'buffer-full', limitBytes: this._options.maxBufferBytes });
      return;
    }
    attachment.buffer.push({ stream, line });
  }

  /** Notes the id of a request a window sends (answers and notifications carry none to note). */
  private _noteRequest(line: string): void {
    const m = /"method"\s*:/.test(line) ? parseObject(line) : undefined;
    if (!m || typeof m.method !== 'string' || (typeof m.id !== 'number' && typeof m.id !== 'string')) return;
    this._inFlight.add(idKey(m.id));
    if (typeof m.id === 'number' && Number.isSafeInteger(m.id) && m.id > this._maxRequestId) this._maxRequestId = m.id;
  }
}

function idKey(id: string | number): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The id of a JSON-RPC answer on `line` (a result or an error, no method), as {@link idKey} keys it. */
function responseId(line: string): string | undefined {
  if (!/"(result|error)"\s*:/.test(line)) return undefined;
  const m = parseObject(line);
  if (!m || 'method' in m || (typeof m.id !== 'number' && typeof m.id !== 'string')) return undefined;
  return idKey(m.id);
}
