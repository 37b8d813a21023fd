/**
 * A window's way to its server host: the private folder and token made or checked, the host
 * reached — or started, detached, as `process.execPath hostScript --dir <folder>` with no stdio of
 * its own, so it outlives the window's extension host — and one link shared by the window's
 * servers, closed when none is attached any more (so the host may exit when it owns nothing).
 */
import { spawn } from 'node:child_process';
import { HostLink } from './hostLink.js';
import { ensureToken } from './privateDir.js';

/** How long a window waits for a host it started to listen. */
const START_TIMEOUT_MS = 10_000;
const RETRY_MS = 50;

export interface ServerHostLaunch {
  /** The private folder (hostDir.ts `defaultHostDir`; privateDir.ts makes and checks it). */
  readonly dir: string;
  /** The host's bundle (`dist/serverHost.js`). */
  readonly hostScript: string;
  /** The program that runs it (default `process.execPath`, run as Node). */
  readonly execPath?: string;
  /** Extra environment for the host process (tests: `MCP_TASKS_HOST_IDLE_MS`). */
  readonly env?: Readonly<Record<string, string>>;
}

export class ServerHostClient {
  private _link?: Promise<HostLink>;
  /** Transports using the link now (from {@link acquire} to {@link release}). */
  private _holds = 0;

  constructor(private readonly _launch: ServerHostLaunch) {}

  get dir(): string {
    return this._launch.dir;
  }

  /** The link to the host, started if none runs. Rejects with why it cannot be reached. */
  link(): Promise<HostLink> {
    const current = this._link;
    if (current) {
      return current.then(
        (l) => (l.closed ? this._open() : l),
        () => this._open(),
      );
    }
    return this._open();
  }

  /** The link, held until {@link release}: it stays open while anything holds it. */
  async acquire(): Promise<HostLink> {
    this._holds++;
    try {
      return await this.link();
    } catch (e) {
      this._holds--;
      throw e;
    }
  }

  /** One holder is done with the link; the last one closes it (the host may then exit when it owns nothing). */
  release(): void {
    if (--this._holds > 0) return;
    this._holds = 0;
    void this._link?.then(
      (l) => {
        if (this._holds === 0) l.close();
      },
      () => undefined,
    );
  }

  private _open(): Promise<HostLink> {
    const p = this._connect();
    this._link = p;
    return p;
  }

  private async _connect(): Promise<HostLink> {
    const { dir } = this._launch;
    const token = await ensureToken(dir);
    try {
      return await HostLink.open(dir, token);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ECONNREFUSED') throw e;
    }
    const started = this._startHost();
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        return await HostLink.open(dir, token);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if ((code !== 'ENOENT' && code !== 'ECONNREFUSED') || Date.now() > deadline) throw new Error(`the server host did not start: ${(e as Error).message}`);
      }
      // A host that ended before it listened (its script missing, a crash at start) will not listen:
      // said at once, so the window spawns its servers itself now rather than after the whole wait.
      if (started.ended) throw new Error(`the server host did not start: ${started.ended}`);
      // The host is starting: polled, as a terminal's pty host is, until it listens.
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }

  /** Starts a host; `ended` says how, once it ended (a host that listens runs on, detached). */
  private _startHost(): { ended?: string } {
    const { dir, hostScript, execPath = process.execPath, env } = this._launch;
    const child = spawn(execPath, [hostScript, '--dir', dir], {
      detached: true,
      stdio: 'ignore',
      windowsHide: true,
      // In VS Code the program is Electron: run as plain Node.
      env: { ...process.env, ...env, ELECTRON_RUN_AS_NODE: '1' },
    });
    const started: { ended?: string } = {};
    child.on('error', (e) => (started.ended ??= `it could not be run (${e.message})`));
    child.on('exit', (code, signal) => (started.ended ??= signal ? `it was ended by ${signal}` : `it exited with code ${code}`));
    child.unref();
    return started;
  }
}
