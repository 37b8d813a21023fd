/**
 * One MCP server connection: an SDK `Client` over stdio or Streamable HTTP, its observable
 * state, crash restarts with backoff, JSON-RPC tracing, and the receiver side of tasks
 * (sampling and elicitation requests answered through the {@link TaskLedger}).
 */
import {
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitResult,
  type Implementation,
  type JSONRPCMessage,
  type Result,
  type ServerCapabilities,
  type Transport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode, errorMessage } from '../base/errors.js';
import { Emitter, type Event } from '../base/event.js';
import { DisposableStore, type IDisposable } from '../base/lifecycle.js';
import { NULL_LOG, type ServerLog } from '../base/log.js';
import { LogThrottle } from '../base/logThrottle.js';
import { isSecretName, redactingLog, type RedactingLog } from '../base/redact.js';
import { resolveTransportWithSecrets, type ServerDefinition, type TransportDefinition, type VariableContext } from '../config/config.js';
import type { LedgerScope, TaskLedger } from '../receiver/ledger.js';
import { formatBytes } from './boundedFetch.js';
import { describeState, type ConnectionState } from './connectionState.js';
import { HOST_CAPABILITIES, HostClient } from './hostClient.js';
import { CrashHistory, DEFAULT_RESTART_POLICY, type RestartPolicy } from './restartPolicy.js';
import { serveRequest, type HostResponders, type ResponderContext, type ServedParams } from './responders.js';
import { TracingTransport, truncate } from './tracing.js';
import { describeStartFailure, oauthErrorMessage, startFailureMessage } from './startErrors.js';
import { respondToInputRequest, type InputRequestMessage } from './inputRequests.js';
import { StatusNotifications } from './statusNotifications.js';
import { TasksExtensionTransport } from './tasksExtension.js';
import { TaskPush } from './taskPush.js';
import { StdioTransport, type ProcessRecorder } from './stdioTransport.js';
import { describeRefusal, isSessionGone, readSession, sessionKey, type SavedSession, type SessionStore } from './httpSession.js';
import { restoreSessionState, sessionResumeProblems } from './sdkInternals.js';
import { hasTaskServerCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { SentTaskLink } from './responders.js';
import { createTransport } from './transports.js';
import { MessageBoundsTransport } from './messageBounds.js';
import { isUnauthorized, SignInRequiredError } from './auth/signInRequired.js';
import { credentialsRejectedMessage, rejectedCredentialsCode } from './auth/credentialsRejected.js';
import { SignInError, type ServerAuth } from './auth/serverAuth.js';
import type { ConnectGate } from '../config/gate.js';

export { NULL_LOG, type ServerLog } from '../base/log.js';
export { describeState, type ConnectionState } from './connectionState.js';
export { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restartPolicy.js';
export type { HostResponders, ResponderContext } from './responders.js';

export interface ConnectionOptions {
  readonly ledger: TaskLedger;
  readonly responders: HostResponders;
  readonly log?: ServerLog;
  readonly variables: VariableContext;
  readonly clientInfo?: Implementation;
  readonly capabilities?: ClientCapabilities;
  readonly restart?: Partial<RestartPolicy>;
  /** Milliseconds to wait for `server/discover` or `initialize`. */
  readonly initializeTimeoutMs?: number;
  /** How the protocol revision is chosen (default `'auto'`: `server/discover`, else `initialize`). */
  readonly versionNegotiation?: VersionNegotiationMode;
  /**
   * Makes the transport instead of spawning/dialling from the resolved definition (e.g. the
   * SDK's in-memory linked transport in benchmarks and tests). Everything else (handlers,
   * ledger scope, tracing, state) is the same as for a real server.
   */
  readonly transportFactory?: (def: TransportDefinition) => Transport | Promise<Transport>;
  /** OAuth for an HTTP server (auth/serverAuth.ts); without it a 401 is an ordinary start failure. */
  readonly auth?: ServerAuth;
  /**
   * Whether the user has work on this server (sent tasks in flight): a stdio server that keeps
   * failing is then tried again for as long as it takes (the delay capped) instead of given up on.
   * An HTTP server is always tried again: an outage ends by itself.
   */
  readonly hasWork?: () => boolean;
  /** Where Streamable HTTP sessions are kept across windows (httpSession.ts); none: a new session each time. */
  readonly sessions?: SessionStore;
  /** Where spawned server processes are written down (processJournal.ts), for the next window to stop leftovers. */
  readonly processes?: ProcessRecorder;
  /**
   * Asked before every connect — start, restart after a crash, after a sign-in or sign-out — and
   * before a sign-in contacts anything (config/gate.ts). None: always allowed (tests, headless).
   */
  readonly gate?: ConnectGate;
}

/**
 * Whether the server that answers now still knows what it knew before (the tracker names a lost
 * task's true cause by it): `resumed`, the same HTTP session; `new-session`, a new one (`detail`
 * says why the old one was not resumed); `new-process`, a stdio server started anew (`detail`:
 * how the old one ended); `first`, nothing before it in this window.
 */
export interface Continuity {
  readonly kind: 'first' | 'resumed' | 'new-session' | 'new-process';
  readonly detail?: string;
}

const STDERR_TAIL_LINES = 20;

/** How long before a server's end its stderr lines are taken to say why it ended. */
const EXPLAINING_STDERR_MS = 5_000;
/** A warning of the runtime (Node's `(node:123) SomeWarning: …`): never why a server ended. */
const RUNTIME_WARNING = /^\(node:\d+\) \w*Warning\b/;

/** A restart delay as the user reads it: "1 s", "30 s", "2 min". */
function formatDelay(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
/** How long a stdio server may stay silent to the `server/discover` probe before it is taken for a 2025 server. */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

/**
 * A server connection. `start()` connects (resolving `${…}` variables first); a stdio
 * server that exits unexpectedly is restarted with exponential backoff until it crashes
 * `maxCrashes` times within `windowMs`. `dispose()` stops it and aborts everything pending.
 */
export class McpConnection implements IDisposable {
  private readonly _onDidChangeState = new Emitter<ConnectionState>();
  /** Fires on every state change. */
  readonly onDidChangeState: Event<ConnectionState> = this._onDidChangeState.event;
  private readonly _onDidCompleteElicitation = new Emitter<string>();
  /** Fires with the `elicitationId` of `notifications/elicitation/complete` (URL mode). */
  readonly onDidCompleteElicitation: Event<string> = this._onDidCompleteElicitation.event;
  private readonly _onDidReceiveNotification = new Emitter<JSONRPCMessage>();
  /** Every notification from the server (the requestor tracker listens for task status and progress). */
  readonly onDidReceiveNotification: Event<JSONRPCMessage> = this._onDidReceiveNotification.event;

  private _state: ConnectionState = { kind: 'stopped' };
  private _client?: HostClient;
  private _transport?: Transport;
  private _session?: DisposableStore;
  private _startPromise?: Promise<void>;
  private _restartTimer?: NodeJS.Timeout;
  private _stderrTail: { readonly text: string; readonly at: number }[] = [];
  /** Why the transport closed itself (e.g. an oversized message), for the state message. */
  private _closeCause?: string;
  private _generation = 0;
  private _disposed = false;
  /** The URL the HTTP server was last dialled at (variables resolved), for a sign-in. */
  private _httpUrl?: string;
  /** Every line this connection logs goes through its redactor (see {@link RedactingLog}). */
  private readonly _log: RedactingLog;
  readonly scope: LedgerScope;
  private readonly _crashes: CrashHistory;

  constructor(
    readonly definition: ServerDefinition,
    private readonly _options: ConnectionOptions,
  ) {
    this._log = redactingLog(_options.log ?? NULL_LOG);
    this._crashes = new CrashHistory({ ...DEFAULT_RESTART_POLICY, ..._options.restart });
    this.scope = _options.ledger.scope(definition.id, definition.name);
    _options.auth?.setSecretSink((values) => this._log.redactor.add(values));
  }

  get id(): string {
    return this.definition.id;
  }

  get name(): string {
    return this.definition.name;
  }

  get state(): ConnectionState {
    return this._state;
  }

  /** The server's log; it redacts this server's secrets and anything credential-like, at every level. */
  get log(): ServerLog {
    return this._log;
  }

  /** What the server that answers now still knows of before (see {@link Continuity}). */
  get continuity(): Continuity {
    return this._continuity;
  }

  /** The connected SDK client; throws unless running. */
  get client(): HostClient {
    if (this._state.kind !== 'running' || !this._client) {
      throw new SdkError(SdkErrorCode.NotConnected, `Server "${this.name}" is not running (${describeState(this._state)})`);
    }
    return this._client;
  }

  /** The server's capabilities, when running. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this._state.kind === 'running' ? this._state.capabilities : undefined;
  }

  /**
   * Answers a request that came inside a sent task (2026-07-28 `inputRequests`) through the same
   * responders, validation and trust rules as the same request sent directly.
   */
  respondToInput(request: InputRequestMessage, link: SentTaskLink, signal: AbortSignal): Promise<Result> {
    // Counted like a plain request of this server: its prompts are bounded per server, whatever carries them.
    let release: () => void;
    try {
      release = this.scope.openRequest(request.method);
    } catch (e) {
      return Promise.reject(e);
    }
    return respondToInputRequest(this._options.responders, { serverId: this.id, serverName: this.name, definition: this.definition }, request, link, signal).finally(release);
  }

  /**
   * A sent task tracked through this connection: its status is pushed where the server can
   * (taskPush.ts); nothing happens otherwise. {@link unwatchTask} when tracking stops.
   */
  watchTask(taskId: string): void {
    this._push?.watch(taskId);
  }

  unwatchTask(taskId: string): void {
    this._push?.unwatch(taskId);
  }

  /** Keeps the server from starting, with the reason shown to the user (stops it if running). */
  async block(reason: string): Promise<void> {
    this._clearRestartTimer();
    await this._teardown(reason);
    this._setState({ kind: 'blocked', reason });
  }

  /** Starts the server (no-op if starting or running). Resolves when running; rejects with the reason otherwise. */
  start(): Promise<void> {
    if (this._disposed) return Promise.reject(new Error(`Connection to "${this.name}" is disposed`));
    if (this._state.kind === 'running') return Promise.resolve();
    if (this._startPromise) return this._startPromise;
    this._clearRestartTimer();
    const p = this._connect(1).finally(() => {
      if (this._startPromise === p) this._startPromise = undefined;
    });
    this._startPromise = p;
    return p;
  }

  /** Stops the server; pending requests are aborted, received tasks still running are cancelled. */
  async stop(): Promise<void> {
    this._clearRestartTimer();
    this._crashes.reset();
    // Stopped on purpose: its HTTP session is ended (below) and not offered again.
    this._forgetSession();
    this._nextContinuity = { kind: this.definition.transport.type === 'stdio' ? 'new-process' : 'new-session', detail: 'it was stopped and started again' };
    await this._teardown('stopped by the user');
    this._setState({ kind: 'stopped' });
  }

  /** Stops, then starts again (crash count reset). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * Signs in to the server's authorization server (a browser round trip, or a token request for
   * client credentials), then starts. Rejects with a `SignInError` naming why it did not complete;
   * the connection then stays at "sign-in required". A server the gate does not allow now is
   * neither signed in to nor contacted (it is blocked with the gate's reason).
   */
  async signIn(signal?: AbortSignal): Promise<void> {
    const auth = this._options.auth;
    if (!auth || this.definition.transport.type !== 'http') throw new Error(`"${this.name}" does not use OAuth`);
    const verdict = await this._passGate();
    if (verdict !== true) throw new SignInError('failed', verdict);
    let url: string;
    try {
      url = await this._resolvedHttpUrl();
    } catch (e) {
      throw new SignInError('failed', this._log.redactor.redactText(errorMessage(e)));
    }
    this._log.info(`signing in (${auth.interactive ? 'browser' : 'client credentials'})`);
    try {
      await auth.signIn(url, signal);
    } catch (e) {
      this._log.warn(`sign-in failed: ${errorMessage(e)}`);
      throw e;
    }
    this._log.info('signed in');
    await this.stop();
    await this.start();
  }

  /**
   * Forgets the server's tokens, refresh tokens and client registrations, then reconnects (which
   * asks for a sign-in) — only if it was connected or trying to be: a stopped or blocked server
   * only forgets, nothing is started or contacted.
   */
  async signOut(): Promise<void> {
    const auth = this._options.auth;
    if (!auth) return;
    const reconnect = this._state.kind !== 'stopped' && this._state.kind !== 'blocked';
    if (reconnect) await this.stop();
    await auth.signOut();
    this._log.info('signed out: the stored tokens and client registrations were forgotten');
    if (reconnect) await this.start().catch(() => undefined);
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._clearRestartTimer();
    // The window closes or reloads: an HTTP session stays open on the server, to be resumed.
    void this._teardown('the connection was disposed', { endSession: false });
    this._state = { kind: 'stopped' };
    this._onDidChangeState.dispose();
    this._onDidCompleteElicitation.dispose();
    this._onDidReceiveNotification.dispose();
  }

  // ---------------------------------------------------------------------------------------

  /**
   * Asks the gate (config/gate.ts) whether to connect now: `true`, or the reason not to — then
   * the connection is blocked with it, unless it was stopped, blocked or disposed while the gate
   * decided (a question to the user can take a while).
   */
  private async _passGate(): Promise<true | string> {
    const gate = this._options.gate;
    if (!gate) return true;
    const asked = this._generation;
    const verdict = await gate.mayConnect(this.definition);
    if (this._disposed || asked !== this._generation) return `"${this.name}" was stopped while its start was being decided`;
    if (verdict !== true) await this.block(verdict);
    return verdict;
  }

  /** The URL of an HTTP server as last dialled, or resolved now (a sign-in before any connect). */
  private async _resolvedHttpUrl(): Promise<string> {
    if (this._httpUrl) return this._httpUrl;
    const resolved = await resolveTransportWithSecrets(this.definition, this._options.variables);
    this._log.redactor.add(resolved.secrets);
    if (resolved.transport.type !== 'http') throw new Error(`"${this.name}" is not an HTTP server`);
    this._options.auth?.useResolved?.(resolved.transport);
    return resolved.transport.url;
  }

  private async _connect(attempt: number): Promise<void> {
    // Every connect, the first and each restart, passes the gate before anything is resolved or spawned.
    if ((await this._passGate()) !== true) return;
    const generation = ++this._generation;
    this._setState({ kind: 'starting', attempt });
    const session = new DisposableStore();
    this._session = session;
    this._stderrTail = [];
    this._closeCause = undefined;
    let transportDef: TransportDefinition;
    try {
      const resolved = await resolveTransportWithSecrets(this.definition, this._options.variables);
      this._log.redactor.add(resolved.secrets);
      // The environment's own secrets (GITHUB_TOKEN…): a server that got them some way still cannot log them here.
      this._log.redactor.add(Object.entries(this._options.variables.env).flatMap(([k, v]) => (isSecretName(k) ? [v] : [])));
      transportDef = resolved.transport;
      this._options.auth?.useResolved?.(transportDef);
    } catch (e) {
      return this._fail(generation, `Cannot start "${this.name}": ${errorMessage(e)}`, false);
    }
    // A stdout line that is not JSON: logged; while starting, the server is not speaking MCP there (see below).
    let onNoise: (line: string) => void = () => undefined;
    // A Streamable HTTP session kept from before (another window): offered again (httpSession.ts).
    const keyOfSession = transportDef.type === 'http' && !transportDef.legacySse && this._options.sessions && !this._options.transportFactory ? sessionKey(this.definition, transportDef.url) : undefined;
    const resumable = keyOfSession !== undefined && sessionResumeProblems().length === 0;
    if (keyOfSession !== undefined && !resumable) this._log.warn(`sessions are not resumed: ${sessionResumeProblems().join('; ')}`);
    const saved = resumable ? readSession(this._options.sessions!, keyOfSession) : undefined;
    let transport: Transport;
    try {
      transport = this._options.transportFactory
        ? await this._options.transportFactory(transportDef)
        : await createTransport(transportDef, this._log, session, { stderrLine: (line) => this._onStderrLine(line), stdoutNoise: (line) => onNoise(line) }, this._options.auth, saved, this._options.processes);
      if (transportDef.type === 'http') this._httpUrl = transportDef.url;
    } catch (e) {
      return this._fail(generation, `Cannot start "${this.name}": ${errorMessage(e)}`, false);
    }
    // The depth bound first: nothing nested too deep reaches the log, the SDK or any consumer (messageBounds.ts).
    const tracing = new TracingTransport(new MessageBoundsTransport(transport), this._log);
    const client = new HostClient(this._options.clientInfo ?? { name: 'mcp-tasks-vscode', version: '0.1.0' }, {
      capabilities: this._options.capabilities ?? HOST_CAPABILITIES,
      taskStore: this.scope,
      versionNegotiation: this._options.versionNegotiation,
      // On stdio a server silent to `server/discover` is a 2025 server: do not wait long to say so.
      ...(transportDef.type === 'stdio' ? { probeTimeoutMs: Math.min(STDIO_PROBE_TIMEOUT_MS, this._options.initializeTimeoutMs ?? STDIO_PROBE_TIMEOUT_MS) } : {}),
    });
    const extension = new TasksExtensionTransport(tracing, client.taskAnswers, (note) => this._log.warn(note));
    this._client = client;
    this._transport = transport;
    this._installHandlers(client, session);

    // A transport error while starting (garbage on stdout, spawn failure) fails the start at once.
    const protocolErrors = new LogThrottle();
    const startAbort = new AbortController();
    const target = transportDef.type === 'stdio' ? { command: transportDef.command } : { url: transportDef.url };
    let startError: string | undefined;
    let startCause: unknown;
    let rejectedCode: string | undefined;
    const failStart = (msg: string) => {
      if (this._state.kind !== 'starting' || generation !== this._generation) return;
      startError ??= msg;
      startAbort.abort(new Error(msg));
      // Ends a `server/discover` probe at once too (the SDK's probe has no signal; a closed channel ends it).
      void extension.close().catch(() => undefined);
    };
    onNoise = (line) => {
      if (generation !== this._generation) return;
      const quoted = truncate(line.length > 200 ? `${line.slice(0, 200)}…` : line);
      this._log.warn(`[stdout] not JSON-RPC: ${quoted}`);
      failStart(`it wrote text that is not JSON-RPC on stdout: "${quoted}"`);
    };
    // Transport errors reach this handler twice once connected (the transport's own handler, then the client's).
    const seen = new WeakSet<Error>();
    const onError = (err: Error) => {
      if (seen.has(err)) return;
      seen.add(err);
      if (this._state.kind === 'starting') rejectedCode ??= rejectedCredentialsCode(err);
      if (this._options.auth && isUnauthorized(err) && generation === this._generation) {
        startCause ??= err;
        if (this._state.kind === 'running') void this._needsSignIn(generation);
        else startAbort.abort(err);
        return;
      }
      if (this._state.kind === 'starting' && transportDef.type === 'http') {
        // It may be the `server/discover` probe meeting a 2025 server (which answers it 4xx): the SDK
        // then falls back to `initialize`, and if the start fails, its rejection names the cause.
        this._log.debug(`while starting: ${truncate(errorMessage(err))}`);
        return;
      }
      // A program that cannot be spawned or a server that cannot be reached is not a protocol error: say what it is.
      const cause = describeStartFailure(err, target);
      // Server-controlled text of any length (a 50 MB reply to an unknown id is quoted whole by the SDK).
      const msg = truncate(cause?.message ?? oauthErrorMessage(err) ?? errorMessage(err));
      if (cause) this._log.warn(`${cause.kind === 'spawn' ? 'cannot start the program' : 'cannot reach the server'}: ${msg}`);
      else if (protocolErrors.take((summary) => this._log.warn(`protocol errors: ${summary}`))) this._log.warn(`protocol error: ${msg}`);
      const oversized = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(msg);
      if (oversized && generation === this._generation) this._closeCause = `"${this.name}" sent a message larger than the ${formatBytes(Number(oversized[1]))} limit; the connection was closed`;
      if (this._state.kind === 'starting' && generation === this._generation) {
        // A stdio server that errs while starting is not speaking MCP (or cannot run at all).
        failStart(msg);
      } else if (this._state.kind === 'running' && generation === this._generation && transportDef.type === 'http') {
        // An HTTP server that went away does not close anything: ask it whether it is still there.
        this._checkHealth(client, generation);
      }
    };
    // The transport's handler also sees the errors of the version probe, which runs before the client's.
    extension.onerror = onError;
    client.onerror = onError;
    client.onclose = () => this._onClosed(generation);

    try {
      await client.connect(extension, { signal: startAbort.signal, timeout: this._options.initializeTimeoutMs ?? 30_000 });
    } catch (e) {
      if (this._options.auth && (isUnauthorized(startCause) || isUnauthorized(e))) return this._needsSignIn(generation, true);
      const rejected = this._options.auth && !this._options.auth.interactive ? (rejectedCode ?? rejectedCredentialsCode(e)) : undefined;
      if (rejected && transportDef.type === 'http') return this._credentialsRejected(generation, rejected, transportDef.oauth?.issuer);
      const reason = startError ?? startFailureMessage(e, target);
      // Retried with the crash backoff: a server started before its dependency (a port, a file) comes up by itself.
      return this._fail(generation, `"${this.name}" failed to start: ${reason}${this._stderrSummary()}`, true);
    }
    if (generation !== this._generation) return;
    if (saved) {
      let resumed: boolean;
      try {
        resumed = await this._resumeSession(client, transport, saved, generation);
      } catch (e) {
        // Not a refusal of the session (the server is down, say): a start that failed, tried again; the session is still kept.
        return this._fail(generation, `"${this.name}" failed to start: ${startFailureMessage(e, target)}`, true);
      }
      if (generation !== this._generation) return;
      if (!resumed) {
        // The server no longer has it: a new session (what was made in the old one may be gone with it).
        void this._teardown('its session was refused');
        return this._connect(attempt);
      }
    } else if (keyOfSession !== undefined) {
      this._keepSession(keyOfSession, client, transport);
    }
    this._continuity = saved ? { kind: 'resumed' } : (this._nextContinuity ?? (transportDef.type === 'stdio' ? { kind: 'new-process' } : { kind: 'first' }));
    this._nextContinuity = undefined;
    const caps = client.getServerCapabilities() ?? {};
    const protocolVersion = client.getNegotiatedProtocolVersion();
    // 2026-07-28 Tasks extension: from now on every request declares it (§Capability Negotiation).
    extension.use(hasTaskServerCapabilityV2(caps), client.isModern);
    // Push for sent tasks where the session can carry it (2026-07-28 with the Tasks extension).
    this._push = client.isModern && hasTaskServerCapabilityV2(caps) ? session.add(new TaskPush(client, this._log)) : undefined;
    this._log.info(`connected: ${client.getServerVersion()?.name ?? 'server'} ${client.getServerVersion()?.version ?? ''} (${transportDef.type}, MCP ${protocolVersion ?? 'unknown revision'})`);
    this._crashes.succeeded();
    this._setState({ kind: 'running', serverInfo: client.getServerVersion(), capabilities: caps, protocolVersion });
  }

  /**
   * Resumes a kept session on a connected client: its state restored, the server asked (a ping)
   * whether it still has it, its stream of server messages opened again. False when the server
   * refused the session (kept no more); a failure of another kind throws (the start fails and is
   * retried, the session still kept).
   */
  private async _resumeSession(client: HostClient, transport: Transport, saved: SavedSession, generation: number): Promise<boolean> {
    try {
      restoreSessionState(client, saved);
      await client.ping({ timeout: this._options.initializeTimeoutMs ?? 30_000 });
    } catch (e) {
      if (generation !== this._generation) return true;
      if (!isSessionGone(e)) throw e;
      const refusal = describeRefusal(e);
      this._log.info(`the server no longer has session ${saved.sessionId} (${refusal}); starting a new one`);
      this._forgetSession();
      this._nextContinuity = { kind: 'new-session', detail: `it no longer had the session of before: ${refusal}` };
      return false;
    }
    this._log.info(`resumed session ${saved.sessionId} (MCP ${saved.protocolVersion})`);
    this._sessionKey = sessionKey(this.definition, this._httpUrl ?? '');
    // The stream of messages the server sends outside any request (task status notifications…).
    if (transport instanceof StreamableHTTPClientTransport) void transport.resumeStream('').catch((e: unknown) => this._log.debug(`no stream of server messages: ${errorMessage(e)}`));
    return true;
  }

  /** Keeps a 2025 Streamable HTTP session (its id and what the handshake said) for the next window. */
  private _keepSession(key: string, client: HostClient, transport: Transport): void {
    const sessionId = transport.sessionId;
    const protocolVersion = client.getNegotiatedProtocolVersion();
    if (!sessionId || !protocolVersion || client.isModern) return;
    this._sessionKey = key;
    const instructions = client.getInstructions();
    this._options.sessions?.set(key, {
      sessionId,
      protocolVersion,
      capabilities: client.getServerCapabilities() ?? {},
      ...(client.getServerVersion() ? { serverInfo: client.getServerVersion() } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
    });
  }

  private _forgetSession(): void {
    const key = this._sessionKey ?? (this.definition.transport.type === 'http' && this._httpUrl ? sessionKey(this.definition, this._httpUrl) : undefined);
    if (key !== undefined) this._options.sessions?.set(key, undefined);
    this._sessionKey = undefined;
  }

  private _onStderrLine(line: string): void {
    if (!line) return;
    this._stderrTail.push({ text: line, at: Date.now() });
    if (this._stderrTail.length > STDERR_TAIL_LINES) this._stderrTail.shift();
    this._log.info(`[stderr] ${line}`);
  }

  /**
   * What the server wrote on stderr just before it ended (the last few seconds), quoted: that is
   * what says why. A banner from its start or a runtime warning explains nothing, and is left out.
   */
  private _stderrSummary(): string {
    const since = Date.now() - EXPLAINING_STDERR_MS;
    const recent = this._stderrTail.filter((l) => l.at >= since && !RUNTIME_WARNING.test(l.text)).map((l) => l.text);
    const tail = recent.slice(-3).join(' | ');
    return tail ? ` (stderr: ${tail.slice(0, 400)})` : '';
  }

  /** How the server process ended ("exit code 1", "killed by SIGKILL"), when it was one this host started. */
  private _exitSummary(): string | undefined {
    const exit = this._transport instanceof StdioTransport ? this._transport.exit : undefined;
    if (!exit) return undefined;
    return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
  }

  private _installHandlers(client: HostClient, session: DisposableStore): void {
    const responders = this._options.responders;
    const scope = this.scope;
    const serve = <P extends ServedParams, R extends Result>(method: string, params: P, requestId: string | number, signal: AbortSignal, respond: (params: P, ctx: ResponderContext) => Promise<R>) =>
      serveRequest(scope, { serverId: this.id, serverName: this.name, definition: this.definition }, { method, params, requestId, signal }, respond);
    // A task-augmented request answers its CreateTaskResult (hostClient.ts lets it past the SDK's result check).
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      serve('sampling/createMessage', request.params, ctx.mcpReq.id, ctx.mcpReq.signal, (p, c) => responders.sampling(p, c)) as Promise<CreateMessageResult>,
    );
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      serve('elicitation/create', request.params, ctx.mcpReq.id, ctx.mcpReq.signal, (p, c) => responders.elicitation(p, c)) as Promise<ElicitResult>,
    );
    client.setNotificationHandler('notifications/elicitation/complete', (n) => {
      this._onDidCompleteElicitation.fire(n.params.elicitationId);
    });
    client.fallbackNotificationHandler = async (n) => {
      this._onDidReceiveNotification.fire({ jsonrpc: '2.0', ...n } as JSONRPCMessage);
    };

    // R-NOTIFY-1: tell the server about every status change of its tasks (no related-task metadata),
    // after the answers of the same turn (see StatusNotifications). Not on creation: the
    // CreateTaskResult already carries the new `working` task, and a notification there would add
    // a message to every task's critical path — 1.3× the SDK's CPU per received task and its
    // CreateTaskResult p99 (bench/, row 1). The SDK's own receivers do the same.
    const notifications = session.add(
      new StatusNotifications((task) => {
        if (this._client !== client || this._state.kind !== 'running') return;
        // A 2025-11-25 notification (the SDK's typed list of methods leaves the deprecated task ones out).
        client.notification({ method: 'notifications/tasks/status', params: task } as unknown as Parameters<HostClient['notification']>[0]).catch((e) => {
          this._log.debug(`could not send notifications/tasks/status: ${errorMessage(e)}`);
        });
      }),
    );
    session.add(
      this._options.ledger.onDidChange((c) => {
        if (c.kind === 'created' || c.scopeId !== this.id || !c.statusChanged || this._client !== client || this._state.kind !== 'running') return;
        notifications.push({ ...c.task });
      }),
    );
  }

  private _onClosed(generation: number): void {
    if (generation !== this._generation || this._disposed) return;
    const wasRunning = this._state.kind === 'running';
    const isStdio = this.definition.transport.type === 'stdio';
    if (this._state.kind === 'starting') return; // the connect() failure path reports it
    if (!wasRunning) return;
    const exit = this._exitSummary();
    // A process that was killed says so; its stderr is not why (it did not get to say anything).
    const stderr = exit?.startsWith('killed') ? '' : this._stderrSummary();
    this._log.warn(`connection closed unexpectedly${exit ? ` (${exit})` : ''}${stderr}`);
    if (isStdio) this._nextContinuity = { kind: 'new-process', detail: exit ? `the old one ended: ${exit}` : 'the old one ended' };
    this.scope.abortAll(`the connection to "${this.name}" closed`);
    void this._teardown('the connection closed');
    this._scheduleRestart(this._closeCause ?? (isStdio ? `"${this.name}" exited unexpectedly${exit ? ` (${exit})` : ''}${stderr}` : `The connection to "${this.name}" closed`));
  }

  private _healthCheck?: Promise<void>;
  private _continuity: Continuity = { kind: 'first' };
  /** The key of the HTTP session kept for this connection, once there is one. */
  private _sessionKey?: string;
  /** Why the next start is what it is (set on a crash or a refused session, read once it runs). */
  private _nextContinuity?: Continuity;
  /** The task status stream of this session, where there is one. */
  private _push?: TaskPush;

  /** Pings a running HTTP server after a transport error; if it does not answer, the connection is lost. */
  private _checkHealth(client: HostClient, generation: number): void {
    if (this._healthCheck) return;
    // 2026-07-28 has no `ping`: its cheapest request is `server/discover`.
    const alive: Promise<unknown> = client.isModern ? client.discover({ timeout: 5_000 }) : client.ping({ timeout: 5_000 });
    this._healthCheck = alive
      .then(
        () => undefined,
        (e) => {
          if (generation !== this._generation || this._state.kind !== 'running') return;
          const reason = `"${this.name}" is unreachable: ${errorMessage(e)}`;
          this._log.warn(reason);
          this.scope.abortAll(`the connection to "${this.name}" was lost`);
          void this._teardown('the server is unreachable');
          this._scheduleRestart(reason);
        },
      )
      .finally(() => (this._healthCheck = undefined));
  }

  /** The server wants a sign-in: stop at "needs-sign-in" (naming the authorization server) until the user signs in. */
  private async _needsSignIn(generation: number, starting = false): Promise<void> {
    if (generation !== this._generation) return;
    const auth = this._options.auth;
    const pending = auth?.pendingAuthorization();
    // Synchronous when the SDK just asked for an authorization (the usual case): the state changes before the failed request's caller runs.
    const discovered = !pending && auth?.provider.discoveryState ? (await auth.provider.discoveryState())?.authorizationServerUrl : undefined;
    const authorizationServer = pending?.authorizationServer ?? discovered ?? new URL(this._httpUrl ?? 'http://unknown').origin;
    if (generation !== this._generation) return;
    this._log.warn(`sign-in required at ${authorizationServer}${pending?.scope ? ` (scope ${pending.scope})` : ''}`);
    this.scope.abortAll(`"${this.name}" needs a sign-in`);
    void this._teardown('sign-in required');
    this._setState({ kind: 'needs-sign-in', authorizationServer, scope: pending?.scope });
    if (starting) throw new SignInRequiredError(this.name, authorizationServer);
  }

  /** The authorization server refused the configured client credentials: no retry (the same credentials would be refused again). */
  private async _credentialsRejected(generation: number, code: string, issuer: string | undefined): Promise<void> {
    if (generation !== this._generation) return;
    const discovered = issuer ? undefined : (await this._options.auth?.provider.discoveryState?.())?.authorizationServerUrl;
    const authorizationServer = issuer ?? discovered ?? 'its authorization server';
    if (generation !== this._generation) return;
    const message = this._log.redactor.redactText(credentialsRejectedMessage(this.name, authorizationServer, code, this.definition.source.file));
    this._log.error(message);
    void this._teardown('client credentials refused');
    this._setState({ kind: 'credentials-rejected', authorizationServer, message });
    throw new Error(`"${this.name}" could not start: ${message}`);
  }

  private _fail(generation: number, unredacted: string, crashed: boolean): void {
    if (generation !== this._generation) return;
    const message = this._log.redactor.redactText(unredacted);
    void this._teardown('start failed');
    if (crashed) {
      // Logged there, with the retry that follows.
      this._scheduleRestart(message);
      throw new Error(message);
    }
    this._log.error(message);
    this._setState({ kind: 'error', message });
    throw new Error(message);
  }

  /** Backoff restart after a crash; gives up after `maxCrashes` within `windowMs`. */
  private _scheduleRestart(reason: string): void {
    // Called after the teardown: a stop/start/dispose meanwhile moves the generation on and cancels this restart.
    const generation = this._generation;
    const now = Date.now();
    const http = this.definition.transport.type !== 'stdio';
    const decision = this._crashes.record(now, http || this._options.hasWork?.() === true);
    const n = decision.failures;
    const policy = this._crashes.policy;
    if (decision.giveUp) {
      const message = `${reason}. It crashed or failed to start ${n} times within ${Math.round(policy.windowMs / 1000)} s; not restarting again. Fix the server, then use "Restart Server".`;
      this._log.error(message);
      this._setState({ kind: 'error', message });
      return;
    }
    const delay = decision.delayMs;
    const retryAt = now + delay;
    const verb = http ? 'reconnecting' : 'restarting';
    const tries = decision.inARow;
    const attempt = tries > 1 ? ` (attempt ${tries + 1})` : '';
    this._log.warn(`${reason}; ${verb} in ${delay} ms${attempt}`);
    this._setState({ kind: 'error', message: `${reason}; ${verb} in ${formatDelay(delay)}${attempt}`, retryAt });
    this._restartTimer = setTimeout(() => {
      this._restartTimer = undefined;
      if (this._disposed || generation !== this._generation) return;
      const p: Promise<void> = this._connect(tries + 1)
        .catch(() => undefined)
        .finally(() => {
          if (this._startPromise === p) this._startPromise = undefined;
        });
      this._startPromise = p;
    }, delay);
    this._restartTimer.unref?.();
  }

  private async _teardown(reason: string, { endSession = true }: { readonly endSession?: boolean } = {}): Promise<void> {
    this._generation++;
    const client = this._client;
    const session = this._session;
    const transport = this._transport;
    this._client = undefined;
    this._session = undefined;
    this._transport = undefined;
    this._push = undefined;
    this.scope.abortAll(`cancelled: ${reason}`);
    session?.dispose();
    if (client) {
      client.onclose = undefined;
      client.onerror = undefined;
      // End the HTTP session on the server too (DELETE), without waiting long for a server that is gone.
      if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
        await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref?.())]);
      }
      try {
        await client.close();
      } catch (e) {
        this._log.debug(`close failed: ${errorMessage(e)}`);
      }
    }
  }

  private _clearRestartTimer(): void {
    if (this._restartTimer) clearTimeout(this._restartTimer);
    this._restartTimer = undefined;
  }

  private _setState(state: ConnectionState): void {
    if (this._disposed) return;
    // Error messages are shown in the tree and in notifications: no secrets there either.
    this._state = state.kind === 'error' ? { ...state, message: this._log.redactor.redactText(state.message) } : state;
    state = this._state;
    this._onDidChangeState.fire(state);
  }
}
