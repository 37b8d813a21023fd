/**
 * The stdio transport of a server the server host owns (serverHost/): the same newline-delimited
 * JSON-RPC as stdioTransport.ts, carried over the host's link instead of the window's own pipes.
 * What the server wrote before the client listens is held, in order: after a spawn until the client
 * starts the transport, after a reattach until the session's state is restored on the client
 * ({@link deliverHeld}), so nothing the server said while no window was there is read without it.
 *
 * A reattached transport carries a `sessionId` (the host's id of the server): the SDK's connect then
 * skips its handshake, as for a Streamable HTTP session it resumes — the server is not asked
 * `initialize` a second time. `close()` ends the server through the host, unless
 * {@link keepRunningOnClose} was called first (the window is going: the server stays for the next).
 */
import { serializeMessage, SdkError, SdkErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { deliverMessageLine } from './messageLine.js';
import { describeEnd, MAX_SERVER_LINE_BYTES, type EndReason } from '../serverHost/frames.js';
import type { HostLink, ServerChannel } from '../serverHost/hostLink.js';
import type { ProcessExit } from './stdioTransport.js';

/** Why a hosted server's transport closed. */
export type HostedEnd = EndReason | { readonly kind: 'taken' } | { readonly kind: 'link-closed' };

export class HostedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** A stdout line that is not JSON. */
  onNoise?: (line: string) => void;
  /** Each line the process writes on stderr. */
  onStderrLine?: (line: string) => void;
  /** The SDK reads `pid` and `stderr` to know a transport is stdio (its probe's timeout). */
  readonly stderr = null;

  private _held: Array<{ readonly out: boolean; readonly line: string }> | undefined = [];
  private _started = false;
  private _keepRunning = false;
  private _end?: HostedEnd;
  private _closed = false;
  private _serverId?: string;
  private _pid: number | null = null;
  private _sessionId?: string;
  private _spawn?: (channel: ServerChannel) => Promise<{ readonly serverId: string; readonly pid: number }>;
  /** On a reattach: the number the client's next request takes. */
  nextRequestId?: number;
  /** Why a new server was started instead of the one of before (the connection's continuity says it). */
  replaced?: string;

  constructor(
    private readonly _link: HostLink,
    /** Told when this transport no longer uses the link (it may close then). */
    private readonly _released: () => void,
  ) {}

  /** What the link routes to this transport; given to the host's spawn or attach. */
  readonly channel: ServerChannel = {
    out: (line) => this._incoming(true, line),
    err: (line) => this._incoming(false, line),
    ended: (reason) => this._ended(reason),
  };

  /** The host's id of the server, once spawned or attached. */
  get serverId(): string | undefined {
    return this._serverId;
  }

  get pid(): number | null {
    return this._pid;
  }

  /** Set on a reattached transport only (the SDK then skips the handshake). */
  get sessionId(): string | undefined {
    return this._sessionId;
  }

  /** How the server ended, once it has. */
  get end(): HostedEnd | undefined {
    return this._end;
  }

  /** How the process ended, in the words stdioTransport.ts's exit gives (serverOutput.ts). */
  get endSummary(): string | undefined {
    const end = this._end;
    if (!end) return undefined;
    if (end.kind === 'taken') return 'another window attached to it';
    if (end.kind === 'link-closed') return 'the server host is gone';
    return describeEnd(end);
  }

  /** How the process ended, when it exited (not when the host ended it). */
  get exit(): ProcessExit | undefined {
    return this._end?.kind === 'exited' ? { code: this._end.code, signal: this._end.signal as NodeJS.Signals | null } : undefined;
  }

  /**
   * The server is this one: spawned, or reattached to (`nextRequestId` given: the number the next
   * request takes, after the last window's; its output is held until {@link deliverHeld}).
   */
  bind(serverId: string, pid: number, nextRequestId?: number): void {
    this._serverId = serverId;
    this._pid = pid;
    if (nextRequestId !== undefined) {
      this._sessionId = serverId;
      this.nextRequestId = nextRequestId;
    }
  }

  /** This transport will not be used (its opening failed): the link is let go. */
  release(): void {
    this._closed = true;
    this._released();
  }

  /** The window is going: `close()` leaves the server running for the next window. */
  keepRunningOnClose(): void {
    this._keepRunning = true;
  }

  /** What starts a new server (when this transport did not reattach): the host's spawn, run by {@link start}. */
  spawnWith(spawn: (channel: ServerChannel) => Promise<{ readonly serverId: string; readonly pid: number }>): void {
    this._spawn = spawn;
  }

  /** Starts the server through the host (a reattached one runs already); rejects as a direct spawn does. */
  async start(): Promise<void> {
    if (this._started) throw new Error('the transport was started already');
    this._started = true;
    if (this._sessionId) return;
    if (this._spawn) {
      try {
        const { serverId, pid } = await this._spawn(this.channel);
        this.bind(serverId, pid);
      } catch (e) {
        this._closed = true;
        this._released();
        throw e;
      }
    }
    this.deliverHeld();
  }

  /** Hands the client what the server wrote before it listened (in order); from now on, lines as they come. */
  deliverHeld(): void {
    const held = this._held;
    if (!held || !this._started) return;
    this._held = undefined;
    for (const h of held) this._deliver(h.out, h.line);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this._closed || this._end || !this._serverId) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    this._link.send(this._serverId, serializeMessage(message).replace(/\n$/, ''));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this._closed) return;
    this._closed = true;
    const serverId = this._serverId;
    if (serverId && !this._end) {
      if (this._keepRunning) this._link.detach(serverId);
      else await this._link.stop(serverId).catch(() => undefined);
    }
    this._released();
    this.onclose?.();
  }

  private _incoming(out: boolean, line: string): void {
    if (this._held) this._held.push({ out, line });
    else this._deliver(out, line);
  }

  private _deliver(out: boolean, line: string): void {
    if (!out) return this.onStderrLine?.(line);
    deliverMessageLine(line, this);
  }

  private _ended(reason: HostedEnd): void {
    if (this._end || this._closed) return;
    this._end = reason;
    // The wording the connection reads to say the limit was hit (transportErrors.ts).
    if (reason.kind === 'oversized') this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${MAX_SERVER_LINE_BYTES} bytes`));
    this._closed = true;
    this._released();
    this.onclose?.();
  }
}
