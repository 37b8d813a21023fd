/**
 * The server host: a small process of this extension's own that owns stdio servers for windows, so
 * a server outlives the window that started it (a reload) the way a terminal outlives it in VS
 * Code's pty host. It listens on a Unix socket in its private folder (privateDir.ts); a connection
 * must show the token first, and every frame is checked (frames.ts). It spawns only what a window
 * holding the token asks (a window asks only after its trust gate said yes), keeps each server's
 * pipes (hostedServer.ts), and when the window attached to a server goes, buffers what the server
 * writes until a window attaches again — or ends it after the grace period. It owns nothing and
 * nobody is connected for `idleMs`: it is told to exit (`idle`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { HostedServer, type ServerPeer } from './hostedServer.js';
import { LineReader, MAX_FRAME_BYTES, MAX_HELLO_BYTES, WindowFrameSchema, decodeFrame, encodeFrame, type EndReason, type HostFrame, type WindowFrame } from './frames.js';
import { hostPaths } from './privateDir.js';
import { TurnWrites } from '../base/turnWrites.js';

/** What a window that showed nothing yet gets to show its token in. */
const HELLO_TIMEOUT_MS = 5_000;
/** Default bound of what one server may write while no window is attached. */
export const DEFAULT_MAX_BUFFER_BYTES = 4 * 1024 * 1024;

export interface ServerHostOptions {
  readonly dir: string;
  readonly token: string;
  readonly maxBufferBytes?: number;
  /** How long the host waits, owning nothing with nobody connected, before `idle` (default 10 s). */
  readonly idleMs?: number;
  /** The host owns nothing and nobody is connected: the process may exit. */
  readonly idle?: () => void;
  readonly log?: (line: string) => void;
  /** Told when a server ended, and why (its log line; the tests wait on it). */
  readonly serverEnded?: (serverId: string, reason: EndReason) => void;
}

/** A server that ended while no window was attached: what a window that comes back is told. */
type Ended = { readonly reason: EndReason; readonly timer: NodeJS.Timeout };

export class ServerHost {
  private _server?: Server;
  private readonly _servers = new Map<string, HostedServer>();
  private readonly _ended = new Map<string, Ended>();
  private readonly _peers = new Set<Peer>();
  /** The grace each server was last given, kept after it ended to keep its end known as long. */
  private readonly _grace = new Map<string, number>();
  private _idleTimer?: NodeJS.Timeout;
  private readonly _token: Buffer;

  constructor(private readonly _options: ServerHostOptions) {
    this._token = Buffer.from(_options.token, 'utf8');
  }

  /** The servers running now. */
  get serverCount(): number {
    return this._servers.size;
  }

  /** Listens on the folder's socket (a stale one, that nothing answers on, is replaced). Rejects when another host listens there. */
  async listen(): Promise<void> {
    const { socket } = hostPaths(this._options.dir);
    if (await answers(socket)) throw new Error(`another server host listens on ${socket}`);
    await fs.rm(socket, { force: true });
    const server = createServer((s) => this._connection(s));
    this._server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await fs.chmod(socket, 0o600);
    this._checkIdle();
  }

  /** Ends every server and stops listening. */
  async close(): Promise<void> {
    clearTimeout(this._idleTimer);
    for (const e of this._ended.values()) clearTimeout(e.timer);
    this._ended.clear();
    await Promise.all([...this._servers.values()].map((s) => s.stop()));
    for (const p of this._peers) {
      p.flush();
      p.socket.destroy();
    }
    await new Promise<void>((resolve) => (this._server ? this._server.close(() => resolve()) : resolve()));
  }

  private _log(line: string): void {
    this._options.log?.(line);
  }

  private _connection(socket: Socket): void {
    const peer = new Peer(socket);
    this._peers.add(peer);
    this._checkIdle();
    const hello = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const reader = new LineReader(
      () => (peer.authenticated ? MAX_FRAME_BYTES : MAX_HELLO_BYTES),
      (line) => {
        const frame = decodeFrame(WindowFrameSchema, line);
        if (!frame) {
          this._log('a frame that is not one was refused; connection closed');
          return socket.destroy();
        }
        if (!peer.authenticated) {
          clearTimeout(hello);
          if (frame.t !== 'hello' || !this._tokenMatches(frame.token)) {
            this._log('a connection without the token was refused');
            return socket.destroy();
          }
          peer.authenticated = true;
          return peer.send({ t: 'welcome', hostPid: process.pid });
        }
        void this._frame(peer, frame);
      },
      () => socket.destroy(),
    );
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(hello);
      this._peers.delete(peer);
      for (const s of this._servers.values()) if (s.isAttachedTo(peer)) s.detach(this._grace.get(s.serverId) ?? 0);
      this._checkIdle();
    });
  }

  private _tokenMatches(token: string): boolean {
    const given = Buffer.from(token, 'utf8');
    return given.length === this._token.length && timingSafeEqual(given, this._token);
  }

  private async _frame(peer: Peer, frame: WindowFrame): Promise<void> {
    switch (frame.t) {
      case 'hello':
        return;
      case 'spawn': {
        const serverId = randomBytes(16).toString('hex');
        const server = new HostedServer({ serverId, spec: frame.spec, fingerprint: frame.fingerprint, maxBufferBytes: this._options.maxBufferBytes ?? DEFAULT_MAX_BUFFER_BYTES, ended: (s, reason) => this._serverEnded(s, reason) }, peer);
        this._grace.set(serverId, frame.graceMs);
        try {
          const pid = await server.start();
          this._servers.set(serverId, server);
          this._log(`started ${frame.label} (pid ${pid}, ${serverId})`);
          peer.send({ t: 'spawned', rid: frame.rid, serverId, pid });
          // The window went while it was being started: the grace runs from now.
          if (!this._peers.has(peer)) server.detach(frame.graceMs);
        } catch (e) {
          this._grace.delete(serverId);
          // The system error as the window's own spawn would have it (startErrors.ts names the cause from it).
          const err = e as NodeJS.ErrnoException;
          const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined);
          peer.send({ t: 'failed', rid: frame.rid, message: String(err.message ?? e).slice(0, 2000), code: text(err.code, 64), syscall: text(err.syscall, 64), path: text(err.path, 4096) });
        }
        this._checkIdle();
        return;
      }
      case 'attach': {
        const server = this._servers.get(frame.serverId);
        if (!server) {
          const ended = this._ended.get(frame.serverId);
          peer.send({ t: 'gone', rid: frame.rid, serverId: frame.serverId, reason: ended?.reason ?? { kind: 'unknown' } });
          return;
        }
        this._grace.set(frame.serverId, frame.graceMs);
        // Another window had it (a window reloading while the old one's connection is still open): it is told.
        for (const p of this._peers) if (p !== peer && server.isAttachedTo(p)) p.send({ t: 'taken', serverId: frame.serverId });
        peer.send({ t: 'attached', rid: frame.rid, serverId: frame.serverId, pid: server.pid, fingerprint: server.fingerprint, nextRequestId: server.nextRequestId });
        server.attach(peer);
        return;
      }
      case 'send': {
        const server = this._servers.get(frame.serverId);
        if (server?.isAttachedTo(peer)) server.write(frame.line);
        return;
      }
      case 'detach': {
        const server = this._servers.get(frame.serverId);
        if (server?.isAttachedTo(peer)) server.detach(this._grace.get(frame.serverId) ?? 0);
        return;
      }
      case 'stop': {
        const server = this._servers.get(frame.serverId);
        if (server) await server.stop();
        peer.send({ t: 'stopped', rid: frame.rid, serverId: frame.serverId });
        return;
      }
    }
  }

  private _serverEnded(server: HostedServer, reason: EndReason): void {
    this._servers.delete(server.serverId);
    this._log(`${server.serverId} ended (${reason.kind})`);
    this._options.serverEnded?.(server.serverId, reason);
    // Its end is kept for as long as a window had to come back, so one that comes back learns why.
    const keep = reason.kind === 'stopped' ? 0 : (this._grace.get(server.serverId) ?? 0);
    this._grace.delete(server.serverId);
    if (keep > 0) {
      const timer = setTimeout(() => {
        this._ended.delete(server.serverId);
        this._checkIdle();
      }, keep);
      this._ended.set(server.serverId, { reason, timer });
    }
    this._checkIdle();
  }

  private _checkIdle(): void {
    clearTimeout(this._idleTimer);
    this._idleTimer = undefined;
    if (this._servers.size || this._ended.size || this._peers.size || !this._options.idle) return;
    this._idleTimer = setTimeout(() => this._options.idle?.(), this._options.idleMs ?? 10_000);
  }
}

/** One window's connection. */
class Peer implements ServerPeer {
  authenticated = false;
  /** Frames to the window, a turn of the event loop at a time (a chunk of a server's answers is one write). */
  private readonly _writes = new TurnWrites((text) => {
    if (!this.socket.destroyed && !this.socket.writableEnded) this.socket.write(text);
  });

  constructor(readonly socket: Socket) {}

  send(frame: HostFrame): void {
    if (!this.socket.destroyed) this._writes.write(encodeFrame(frame));
  }

  /** Writes the frames waiting for the end of this turn now (before the socket is destroyed). */
  flush(): void {
    this._writes.flush();
  }

  out(serverId: string, line: string): void {
    this.send({ t: 'out', serverId, line });
  }

  err(serverId: string, line: string): void {
    this.send({ t: 'err', serverId, line });
  }

  exit(serverId: string, reason: EndReason): void {
    this.send({ t: 'exit', serverId, reason });
  }
}

/** Whether something accepts connections on `socket` (a host already running there). */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(socket);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
