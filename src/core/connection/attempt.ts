/**
 * One attempt of a connection to reach its server: the transport it opened, the SDK client on it
 * (tracing and message bounds around it, and what each side installs: clientSide.ts), the errors
 * routed while it lasts, and everything it owns. A crash, a stop or a new session ends the attempt
 * as a whole; the connection (connection.ts) makes the next one.
 */
import { StreamableHTTPClientTransport, mergeCapabilities, type ClientCapabilities, type FetchLike, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import { DisposableStore } from '../base/lifecycle.js';
import type { RedactingLog } from '../base/redact.js';
import type { ServerDefinition, TransportDefinition } from '../config/config.js';
import type { ClientSide, SideAttempt } from './clientSide.js';
import type { ConnectionOptions } from './connectionOptions.js';
import type { ConnectionState } from './connectionState.js';
import { HostClient } from './hostClient.js';
import { describeRefusal, isSessionGone, type SavedSession } from './httpSession.js';
import { MessageBoundsTransport } from './messageBounds.js';
import type { ServerOutput } from './serverOutput.js';
import { TracingTransport } from './tracing.js';
import { AttemptErrors, type AttemptHooks, type AttemptPhase } from './transportErrors.js';
import { createTransport } from './transports.js';
import { startFailureMessage } from './startErrors.js';
import { originOf, type ServerOrigin } from './serverOrigin.js';
import type { StdioHost } from './hostedStdio.js';
import { HostedTransport } from './hostedTransport.js';

/** How long a stdio server may stay silent to the `server/discover` probe before it is taken for a 2025 server. */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

/** What an attempt is given by its connection; `phase` is the connection's state as this attempt sees it. */
export interface AttemptSetup extends Pick<AttemptHooks, 'unauthorizedWhileRunning' | 'oversized'> {
  readonly definition: ServerDefinition;
  readonly options: ConnectionOptions;
  /** What installs itself on the client (clientSide.ts: the receiver, the task wire), in order. */
  readonly sides: readonly ClientSide[];
  readonly log: RedactingLog;
  readonly output: ServerOutput;
  readonly phase: () => AttemptPhase;
  /** The running server did not answer when asked whether it is still there (see {@link ConnectionAttempt.checkHealth}). */
  readonly lost: (reason: string) => void;
  /**
   * The running server answered the health check that it does not know this attempt's session
   * (httpSession.ts {@link isSessionGone}: it restarted, or ended the session): `refusal` says how.
   */
  readonly sessionGone: (refusal: string) => void;
  readonly closed: () => void;
  readonly elicitationComplete: (elicitationId: string) => void;
  readonly notification: (message: JSONRPCMessage) => void;
}

export class ConnectionAttempt {
  /** What lives as long as this attempt (listeners, what the sides keep, the process's output hooks). */
  readonly session = new DisposableStore();
  readonly errors: AttemptErrors;
  private _transport?: Transport;
  private _client?: HostClient;
  /** What the client speaks over: the transport under its bounds and tracing, wrapped by the sides. */
  private _channel?: Transport;
  /** The client as the sides see it. */
  private _sideAttempt?: SideAttempt;
  private _healthCheck?: Promise<void>;
  /** Set by {@link close}: a transport made after it is closed at once, not connected. */
  private _closed = false;
  /** Where this attempt reaches its server (the resolved URL or command line), redacted for display. */
  readonly origin: ServerOrigin;

  constructor(
    private readonly _setup: AttemptSetup,
    readonly transportDef: TransportDefinition,
  ) {
    this.origin = originOf(transportDef, (text) => _setup.log.redactor.redactText(text));
    this.errors = new AttemptErrors({
      phase: _setup.phase,
      http: transportDef.type === 'http',
      signsIn: _setup.options.auth !== undefined,
      target: this.target,
      log: _setup.log,
      closeChannel: () => void this._channel?.close().catch(() => undefined),
      unauthorizedWhileRunning: _setup.unauthorizedWhileRunning,
      httpErrorWhileRunning: () => this.checkHealth(),
      oversized: _setup.oversized,
    });
  }

  /** What was started or dialled, to name it in a failure. */
  get target(): { readonly command?: string; readonly cwd?: string; readonly url?: string } {
    return this.transportDef.type === 'stdio' ? { command: this.transportDef.command, cwd: this.transportDef.cwd } : { url: this.transportDef.url };
  }

  get transport(): Transport | undefined {
    return this._transport;
  }

  get client(): HostClient | undefined {
    return this._client;
  }

  /** The server host this attempt's stdio server runs in (hostedStdio.ts), if it does. */
  get hosted(): StdioHost | undefined {
    const host = this._setup.options.serverHost;
    return this.transportDef.type === 'stdio' && !this._setup.options.transportFactory && host?.hosts(this._setup.definition) ? host : undefined;
  }

  /**
   * Opens the transport (spawns the process — in the server host when it runs this server,
   * reattaching to `saved`'s when it still runs — or makes the HTTP transport offering `saved`) and
   * the client on it, each side installed. Throws when the transport cannot be made.
   */
  async open(saved: SavedSession | undefined): Promise<HostClient> {
    const { options, log, output } = this._setup;
    const def = this.transportDef;
    const sides = this._setup.sides;
    const wrapFetch = (fetch: FetchLike) => sides.reduce((f, side) => side.wrapFetch?.(f) ?? f, fetch);
    const transport = options.transportFactory
      ? await options.transportFactory(def)
      : await createTransport(def, log, this.session, { stderrLine: (line) => output.stderrLine(line), stdoutNoise: (line) => this.errors.noise(line) }, options.auth, saved, options.processes, wrapFetch, this.hosted ? { stdio: this.hosted, label: this._setup.definition.name } : undefined);
    if (this._closed) {
      // Stopped (or restarted) while the transport was being made: no client is left connected to it, no process running.
      await transport.close().catch(() => undefined);
      throw new Error('the attempt ended before its transport was made');
    }
    this._transport = transport;
    // The depth bound first: nothing nested too deep reaches the log, the SDK or any consumer (messageBounds.ts).
    const tracing = new TracingTransport(new MessageBoundsTransport(transport), log);
    const client = new HostClient(options.clientInfo ?? { name: 'mcp-tasks-vscode', version: '0.1.0' }, {
      // What its sides answer, and nothing else (a requestor-only connection declares no sampling or elicitation).
      capabilities: options.capabilities ?? sides.reduce<ClientCapabilities>((c, side) => (side.capabilities ? mergeCapabilities(c, side.capabilities) : c), {}),
      versionNegotiation: options.versionNegotiation,
      // Every transport createTransport makes checks each message against the SDK's schema (transports.ts); one from a factory may not.
      messagesChecked: !options.transportFactory,
      // On stdio a server silent to `server/discover` is a 2025 server: do not wait long to say so.
      ...(def.type === 'stdio' ? { probeTimeoutMs: Math.min(STDIO_PROBE_TIMEOUT_MS, options.initializeTimeoutMs ?? STDIO_PROBE_TIMEOUT_MS) } : {}),
    });
    this._client = client;
    const attempt: SideAttempt = { client, session: this.session, log, isLive: () => this._client === client && this._setup.phase() === 'running' };
    this._sideAttempt = attempt;
    let channel: Transport = tracing;
    for (const side of sides) if (side.wrapChannel) channel = side.wrapChannel(channel, attempt);
    this._channel = channel;
    for (const side of sides) side.install?.(attempt);
    // URL-mode elicitation completions and every other notification are passed on (the tracker listens for task status and progress).
    client.setNotificationHandler('notifications/elicitation/complete', (n) => this._setup.elicitationComplete(n.params.elicitationId));
    client.fallbackNotificationHandler = async (n) => this._setup.notification({ jsonrpc: '2.0', ...n } as JSONRPCMessage);
    // The transport's handler also sees the errors of the version probe, which runs before the client's.
    channel.onerror = (e) => this.errors.error(e);
    client.onerror = (e) => this.errors.error(e);
    client.onclose = () => this._setup.closed();
    return client;
  }

  /** The handshake (`server/discover`, else `initialize`); aborted when the start fails (see {@link AttemptErrors}). */
  async connect(timeoutMs: number): Promise<void> {
    if (!this._client || !this._channel) throw new Error('the attempt has no client');
    await this._client.connect(this._channel, { signal: this.errors.signal, timeout: timeoutMs });
  }

  /**
   * After the handshake: each side told (the task wire declares the Tasks extension where the server
   * has it, and opens push where it can). Logs and returns what the server said of itself (the running state's).
   */
  established(): Pick<Extract<ConnectionState, { kind: 'running' }>, 'serverInfo' | 'capabilities' | 'protocolVersion'> {
    const client = this._client;
    const attempt = this._sideAttempt;
    if (!client || !attempt) throw new Error('the attempt has no client');
    const capabilities = client.getServerCapabilities() ?? {};
    for (const side of this._setup.sides) side.established?.(attempt);
    const serverInfo = client.getServerVersion();
    const protocolVersion = client.getNegotiatedProtocolVersion();
    this._setup.log.info(`connected: ${serverInfo?.name ?? 'server'} ${serverInfo?.version ?? ''} (${this.transportDef.type}, MCP ${protocolVersion ?? 'unknown revision'})`);
    return { serverInfo, capabilities, protocolVersion };
  }

  /**
   * After an HTTP transport error: asks the server whether it is still there (an HTTP server that
   * went away closes nothing). One that does not answer is lost; one that answers that it does not
   * know the session (it restarted while no stream was open to show it) has its session replaced.
   */
  checkHealth(): void {
    const client = this._client;
    if (this._healthCheck || !client) return;
    // 2026-07-28 has no `ping`: its cheapest request is `server/discover`.
    const alive: Promise<unknown> = client.isModern ? client.discover({ timeout: 5_000 }) : client.ping({ timeout: 5_000 });
    this._healthCheck = alive
      .then(
        () => undefined,
        (e: unknown) => {
          if (this._client !== client || this._setup.phase() !== 'running') return;
          // A server that answers but no longer has the session (a 2025 one: a 2026 server has no session).
          const transport = this._transport;
          if (transport instanceof StreamableHTTPClientTransport && transport.sessionId && isSessionGone(e)) return this._setup.sessionGone(describeRefusal(e));
          // The cause named (`nothing listens on … (ECONNREFUSED)`), not undici's "fetch failed".
          this._setup.lost(startFailureMessage(e, this.target));
        },
      )
      .finally(() => (this._healthCheck = undefined));
  }

  /**
   * Ends the attempt: what it owns disposed, the client closed (its HTTP session ended too, unless
   * kept for the next window; a server the host runs left running for the next window when `keepProcess`).
   */
  async close(endSession: boolean, keepProcess = !endSession): Promise<void> {
    this._closed = true;
    const client = this._client;
    const transport = this._transport;
    this._client = undefined;
    this._sideAttempt = undefined;
    this.session.dispose();
    if (!client) return;
    client.onclose = undefined;
    client.onerror = undefined;
    // The window is going (a reload): a server the host runs stays, for the next window to reattach to.
    if (keepProcess && transport instanceof HostedTransport) transport.keepRunningOnClose();
    // End the HTTP session on the server too (DELETE), without waiting long for a server that is gone.
    if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref?.())]);
    }
    try {
      await client.close();
    } catch (e) {
      this._setup.log.debug(`close failed: ${errorMessage(e)}`);
    }
  }
}
