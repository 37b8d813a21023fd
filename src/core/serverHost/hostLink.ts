/**
 * A window's connection to the server host: the token shown first, then requests (spawn, attach,
 * stop) answered in order, and each server's output routed to the channel that listens for it.
 * Every frame the host sends is checked (frames.ts); one that is not a frame closes the link.
 */
import { createConnection, type Socket } from 'node:net';
import { HostFrameSchema, LineReader, MAX_FRAME_BYTES, decodeFrame, encodeFrame, type EndReason, type HostFrame, type SpawnSpec, type WindowFrame } from './frames.js';
import { hostPaths } from './privateDir.js';
import { TurnWrites } from '../base/turnWrites.js';

/** What a window hears of one server it is attached to. */
export interface ServerChannel {
  out(line: string): void;
  err(line: string): void;
  /** The server ended (`reason`), or another window took it (`taken`), or the link to the host closed (`link-closed`). */
  ended(reason: EndReason | { readonly kind: 'taken' } | { readonly kind: 'link-closed' }): void;
}

/** The answer to an attach: the server is there (and now talks to this window), or it is gone and why. */
export type AttachAnswer =
  | { readonly kind: 'attached'; readonly pid: number; readonly fingerprint: string; readonly nextRequestId: number }
  | { readonly kind: 'gone'; readonly reason: EndReason };

type Reply = Extract<HostFrame, { rid: number }>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class HostLink {
  private _rid = 0;
  private readonly _pending = new Map<number, { resolve: (f: Reply) => void; reject: (e: Error) => void }>();
  private readonly _channels = new Map<string, ServerChannel>();
  private _closed = false;
  private readonly _closeListeners = new Set<() => void>();
  /** The host process's id, once it welcomed this window. */
  hostPid = -1;

  /** Frames to the host, a turn of the event loop at a time (a burst of polls is one write). */
  private readonly _writes = new TurnWrites((text) => {
    if (!this._socket.destroyed && !this._socket.writableEnded) this._socket.write(text);
  });

  private constructor(private readonly _socket: Socket) {}

  /** Connects to the host in `dir` and shows `token`; resolves once the host welcomed it. */
  static open(dir: string, token: string, timeoutMs = 5_000): Promise<HostLink> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(hostPaths(dir).socket);
      const link = new HostLink(socket);
      let welcomed = false;
      const timer = setTimeout(() => fail(new Error('the server host did not answer')), timeoutMs);
      const fail = (e: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(e);
      };
      const reader = new LineReader(
        () => MAX_FRAME_BYTES,
        (line) => {
          const frame = decodeFrame(HostFrameSchema, line);
          if (!frame) return link._close();
          if (!welcomed) {
            if (frame.t !== 'welcome') return fail(new Error('the server host did not welcome this window'));
            welcomed = true;
            link.hostPid = frame.hostPid;
            clearTimeout(timer);
            return resolve(link);
          }
          link._frame(frame);
        },
        () => link._close(),
      );
      socket.on('data', (chunk: Buffer) => reader.push(chunk));
      socket.once('connect', () => socket.write(encodeFrame({ t: 'hello', token })));
      socket.on('error', (e) => (welcomed ? link._close() : fail(e)));
      socket.once('close', () => (welcomed ? link._close() : fail(new Error('the server host closed the connection (wrong token?)'))));
    });
  }

  get closed(): boolean {
    return this._closed;
  }

  /** The number of servers this link is attached to. */
  get channelCount(): number {
    return this._channels.size;
  }

  onClose(listener: () => void): { dispose(): void } {
    this._closeListeners.add(listener);
    return { dispose: () => this._closeListeners.delete(listener) };
  }

  /** Starts a server; its output goes to `channel`. Rejects with the spawn's error (the program is not found, say). */
  async spawn(spec: SpawnSpec, fingerprint: string, graceMs: number, label: string, channel: ServerChannel): Promise<{ readonly serverId: string; readonly pid: number }> {
    const reply = await this._request({ t: 'spawn', spec, fingerprint, graceMs, label });
    // Thrown as the window's own spawn would throw it (with the system error's code, syscall and path).
    if (reply.t === 'failed') throw Object.assign(new Error(reply.message), { code: reply.code, syscall: reply.syscall, path: reply.path });
    if (reply.t !== 'spawned') throw new Error(`the server host answered ${reply.t}`);
    this._channels.set(reply.serverId, channel);
    return { serverId: reply.serverId, pid: reply.pid };
  }

  /**
   * Attaches to a running server; from the answer on, its output (what it wrote meanwhile first)
   * goes to `channel`.
   */
  async attach(serverId: string, graceMs: number, channel: ServerChannel): Promise<AttachAnswer> {
    // Listening before asking: the buffered output follows the answer at once.
    this._channels.set(serverId, channel);
    let reply: Reply;
    try {
      reply = await this._request({ t: 'attach', serverId, graceMs });
    } catch (e) {
      this._channels.delete(serverId);
      throw e;
    }
    if (reply.t === 'attached') return { kind: 'attached', pid: reply.pid, fingerprint: reply.fingerprint, nextRequestId: reply.nextRequestId };
    this._channels.delete(serverId);
    if (reply.t === 'gone') return { kind: 'gone', reason: reply.reason };
    throw new Error(`the server host answered ${reply.t}`);
  }

  /** A line to the server's stdin. */
  send(serverId: string, line: string): void {
    this._write({ t: 'send', serverId, line });
  }

  /** Ends the server (through the host, its whole process group); resolves once it exited. */
  async stop(serverId: string): Promise<void> {
    this._channels.delete(serverId);
    await this._request({ t: 'stop', serverId });
  }

  /** This window leaves the server running for the next (it is ended if none attaches within its grace). */
  detach(serverId: string): void {
    if (this._channels.delete(serverId)) this._write({ t: 'detach', serverId });
  }

  close(): void {
    this._writes.flush();
    this._socket.end();
    this._close();
  }

  private _request(frame: DistributiveOmit<Extract<WindowFrame, { rid: number }>, 'rid'>): Promise<Reply> {
    if (this._closed) return Promise.reject(new Error('the link to the server host is closed'));
    const rid = this._rid++;
    return new Promise((resolve, reject) => {
      this._pending.set(rid, { resolve, reject });
      this._write({ ...frame, rid } as WindowFrame);
    });
  }

  private _write(frame: WindowFrame): void {
    if (!this._closed) this._writes.write(encodeFrame(frame));
  }

  private _frame(frame: HostFrame): void {
    switch (frame.t) {
      case 'welcome':
        return;
      case 'out':
        return this._channels.get(frame.serverId)?.out(frame.line);
      case 'err':
        return this._channels.get(frame.serverId)?.err(frame.line);
      case 'exit': {
        const channel = this._channels.get(frame.serverId);
        this._channels.delete(frame.serverId);
        return channel?.ended(frame.reason);
      }
      case 'taken': {
        const channel = this._channels.get(frame.serverId);
        this._channels.delete(frame.serverId);
        return channel?.ended({ kind: 'taken' });
      }
      case 'spawned':
      case 'failed':
      case 'attached':
      case 'gone':
      case 'stopped': {
        const pending = this._pending.get(frame.rid);
        this._pending.delete(frame.rid);
        return pending?.resolve(frame);
      }
    }
  }

  private _close(): void {
    if (this._closed) return;
    this._closed = true;
    this._socket.destroy();
    for (const p of this._pending.values()) p.reject(new Error('the link to the server host closed'));
    this._pending.clear();
    const channels = [...this._channels.values()];
    this._channels.clear();
    for (const c of channels) c.ended({ kind: 'link-closed' });
    for (const l of [...this._closeListeners]) l();
  }
}
