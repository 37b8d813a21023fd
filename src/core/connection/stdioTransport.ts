/**
 * The stdio transport of a server process: newline-delimited JSON-RPC on the child's stdin and
 * stdout (the SDK's message schema and serialisation), with what the SDK's own stdio transport
 * does not give a host:
 * - how the process ended (exit code or signal), for a crash message that says what happened;
 * - stdout lines that are not JSON-RPC, handed to the connection (logged; while starting they
 *   mean the server is not speaking MCP on stdout, and the start fails quoting them), where the
 *   SDK skips them without a word;
 * - the whole process group stopped on close (a server started through `npx`, a shell or a
 *   wrapper leaves no child behind), with the stdin-EOF → SIGTERM → SIGKILL escalation.
 * `pid` and `stderr` are what the SDK's version negotiation reads to know a transport is stdio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { serializeMessage, SdkError, SdkErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { deliverMessageLine } from './messageLine.js';
import { TurnWrites } from '../base/turnWrites.js';

/** The largest stdout line kept while it is incomplete (a longer one ends the connection). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** How long a process gets to exit after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2_000;

export interface ServerProcess {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** Where the processes a window starts are written down (processJournal.ts), so a later window can stop leftovers. */
export interface ProcessRecorder {
  started(pid: number, command: string, args: readonly string[]): void;
  ended(pid: number): void;
}

/** How a server process ended. */
export type ProcessExit = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** A stdout line that is not JSON (a banner, a log line the server wrote to the wrong stream). */
  onNoise?: (line: string) => void;
  /** Each complete line the process writes on stderr. */
  onStderrLine?: (line: string) => void;

  private _process?: ChildProcess;
  private _pending = '';
  private _stderrPartial = '';
  private _exit?: ProcessExit;
  private _closing = false;
  private readonly _writes = new TurnWrites<Promise<void>>(
    (text) => this._toStdin(text),
    (written) => this._batchWritten(written),
  );
  /** What the `send` calls of the batch waiting in `_writes` wait on. */
  private _batchSent: BatchSent | undefined = undefined;

  constructor(
    private readonly _server: ServerProcess,
    private readonly _recorder?: ProcessRecorder,
  ) {}

  /** The process id, once started. */
  get pid(): number | null {
    return this._process?.pid ?? null;
  }

  /** The process's stderr, once started. */
  get stderr(): Readable | null {
    return this._process?.stderr ?? null;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this._exit;
  }

  /** Whether the process was stopped from this side (close) rather than ending by itself. */
  get closedByHost(): boolean {
    return this._closing;
  }

  start(): Promise<void> {
    if (this._process) throw new Error('the server process was started already');
    return new Promise((resolve, reject) => {
      const child = spawn(this._server.command, [...this._server.args], {
        env: { ...this._server.env },
        cwd: this._server.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Its own process group (POSIX), so closing stops everything it started.
        detached: process.platform !== 'win32',
      });
      this._process = child;
      child.once('spawn', () => {
        if (child.pid !== undefined) this._recorder?.started(child.pid, this._server.command, this._server.args);
        resolve();
      });
      child.on('error', (e) => {
        reject(e);
        this.onerror?.(e);
      });
      child.once('exit', (code, signal) => {
        this._exit = { code, signal };
        if (child.pid !== undefined) this._recorder?.ended(child.pid);
      });
      child.once('close', (code, signal) => {
        this._exit ??= { code, signal };
        this._process = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => this._stdout(chunk));
      child.stderr?.on('data', (chunk: Buffer) => this._stderrChunk(chunk));
    });
  }

  /** Writes `message` on the process's stdin, a turn of the event loop at a time (base/turnWrites.ts). */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this._process?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(notConnected());
    return this._writes.write(serializeMessage(message)) ?? (this._batchSent ??= new BatchSent()).promise;
  }

  /** Writes `text` on stdin now; settles once written, or once the pipe drained when it was full. */
  private _toStdin(text: string): Promise<void> {
    const stdin = this._process?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(notConnected());
    return new Promise((resolve) => {
      if (stdin.write(text)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** A batch was written: its senders' promise settles with it. */
  private _batchWritten(written: Promise<void>): void {
    const sent = this._batchSent;
    this._batchSent = undefined;
    if (sent) written.then(sent.resolve, sent.reject);
    else written.catch(() => undefined);
  }

  async close(): Promise<void> {
    const child = this._process;
    this._pending = '';
    // Never spawned (the program was not found) or gone already: nothing to stop.
    if (!child || this._exit || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    this._closing = true;
    // What was sent before the close goes out before the end of input.
    this._writes.flush();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const within = (ms: number) => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (await within(GRACE_MS)) return this._killGroup('SIGTERM');
    this._killGroup('SIGTERM');
    if (await within(GRACE_MS)) return;
    this._killGroup('SIGKILL');
  }

  /** Signals the process and everything in its group (what it started and left behind). */
  private _killGroup(signal: NodeJS.Signals): void {
    const child = this._process;
    const pid = child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') child!.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // the group is gone
    }
  }

  private _stdout(chunk: Buffer): void {
    this._pending += chunk.toString('utf8');
    let newline: number;
    while ((newline = this._pending.indexOf('\n')) !== -1) {
      const line = this._pending.slice(0, newline).replace(/\r$/, '');
      this._pending = this._pending.slice(newline + 1);
      if (line.trim()) this._line(line);
    }
    if (this._pending.length > MAX_MESSAGE_BYTES) {
      this._pending = '';
      // The wording the connection reads to say the limit was hit (connection.ts).
      this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${MAX_MESSAGE_BYTES} bytes`));
      void this.close();
    }
  }

  private _line(line: string): void {
    deliverMessageLine(line, this);
  }

  private _stderrChunk(chunk: Buffer): void {
    const lines = (this._stderrPartial + chunk.toString('utf8')).split(/\r?\n/);
    this._stderrPartial = lines.pop() ?? '';
    if (this._stderrPartial.length > 64 * 1024) this._stderrPartial = this._stderrPartial.slice(-64 * 1024);
    for (const line of lines) this.onStderrLine?.(line);
  }
}

function notConnected(): Error {
  return new SdkError(SdkErrorCode.NotConnected, 'Not connected');
}

/** The promise every `send` of one batch returns. */
class BatchSent {
  resolve!: () => void;
  reject!: (e: Error) => void;
  readonly promise = new Promise<void>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
}
