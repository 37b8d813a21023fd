/**
 * One MCP server connection: an SDK `Client` over stdio or Streamable HTTP, its observable
 * state, crash restarts with backoff, JSON-RPC tracing, and the sides it was given installed on
 * each client it makes (clientSide.ts: the receiver's, the requestor's task wire).
 */
import type { JSONRPCMessage, ServerCapabilities } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode, errorMessage } from '../base/errors.js';
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import { NULL_LOG, type ServerLog } from '../base/log.js';
import { redactingLog, type RedactingLog } from '../base/redact.js';
import type { ServerDefinition, TransportDefinition } from '../config/config.js';
import { passes, withApprovedEnvFile, type ConnectVerdict } from '../config/gate.js';
import { authStopOf, stopForRejectedCredentials, stopForSignIn, type AuthStopTarget } from './auth/authStops.js';
import { signInAndRestart, signOutAndReconnect, type SignInTarget } from './auth/connectionSignIn.js';
import { formatBytes } from './boundedFetch.js';
import type { ConnectionOptions, Continuity } from './connectionOptions.js';
import { describeState, type ConnectionState } from './connectionState.js';
import type { HostClient } from './hostClient.js';
import { ConnectionAttempt, type AttemptSetup } from './attempt.js';
import type { ClientSide } from './clientSide.js';
import type { ServerConnection } from './connectionPort.js';
import { DEFAULT_RESTART_POLICY, RestartScheduler } from './restartPolicy.js';
import { ServerOutput, unexpectedClose } from './serverOutput.js';
import type { ServerOrigin } from './serverOrigin.js';
import { TransportResolver } from './resolvedTransport.js';
import { SessionKeeper, type SessionOutcome } from './sessionKeeper.js';
import { startFailureMessage } from './startErrors.js';
import { HostedTransport } from './hostedTransport.js';

export { NULL_LOG, type ServerLog } from '../base/log.js';
export type { ConnectionOptions, Continuity } from './connectionOptions.js';
export { describeState, type ConnectionState } from './connectionState.js';
export { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restartPolicy.js';
export type { ClientSide, SideAttempt } from './clientSide.js';
export type { RequestorConnection, ServerConnection } from './connectionPort.js';
export type { ServerOrigin } from './serverOrigin.js';
export { ServerHostClient } from '../serverHost/launch.js';

/** A second refusal of a running session sooner than this after the first is a lost server, retried with backoff. */
const SESSION_REPLACED_AGAIN_MS = 10_000;

/**
 * A server connection. `start()` connects (resolving `${…}` variables first); a stdio
 * server that exits unexpectedly is restarted with exponential backoff until it crashes
 * `maxCrashes` times within `windowMs`. `dispose()` stops it and aborts everything pending.
 */
export class McpConnection extends Disposable implements ServerConnection {
  private readonly _onDidChangeState = this._register(new Emitter<ConnectionState>());
  /** Fires on every state change. */
  readonly onDidChangeState: Event<ConnectionState> = this._onDidChangeState.event;
  private readonly _onDidCompleteElicitation = this._register(new Emitter<string>());
  /** Fires with the `elicitationId` of `notifications/elicitation/complete` (URL mode). */
  readonly onDidCompleteElicitation: Event<string> = this._onDidCompleteElicitation.event;
  private readonly _onDidReceiveNotification = this._register(new Emitter<JSONRPCMessage>());
  /** Every notification from the server (the requestor tracker listens for task status and progress). */
  readonly onDidReceiveNotification: Event<JSONRPCMessage> = this._onDidReceiveNotification.event;

  private _state: ConnectionState = { kind: 'stopped' };
  /** The attempt that is starting or running; none while stopped, blocked or waiting to retry. */
  private _attempt?: ConnectionAttempt;
  private _startPromise?: Promise<void>;
  /** Why the transport closed itself (e.g. an oversized message), for the state message. */
  private _closeCause?: string;
  private _generation = 0;
  /** Every line this connection logs goes through its redactor (see {@link RedactingLog}). */
  private readonly _log: RedactingLog;
  /** What installs itself on each client this connection makes (clientSide.ts); none: it only speaks MCP. */
  readonly sides: readonly ClientSide[];
  private readonly _restarts: RestartScheduler;
  private readonly _output: ServerOutput;
  private readonly _sessions: SessionKeeper;
  private readonly _resolver: TransportResolver;
  private _continuity: Continuity = { kind: 'first' };
  /** When a running session was last replaced after the server refused it (see {@link _sessionGone}). */
  private _sessionReplacedAt?: number;
  /** Why the next start is what it is (set on a crash or a refused session, read once it runs). */
  private _nextContinuity?: Continuity;

  constructor(
    readonly definition: ServerDefinition,
    private readonly _options: ConnectionOptions,
  ) {
    super();
    this._log = redactingLog(_options.log ?? NULL_LOG);
    this._restarts = this._register(new RestartScheduler({ ...DEFAULT_RESTART_POLICY, ..._options.restart }));
    this._output = new ServerOutput(this._log);
    this._sessions = new SessionKeeper(definition, _options.sessions, this._log);
    this._resolver = new TransportResolver(definition, _options.variables, this._log, _options.auth);
    this.sides = _options.sides?.(definition) ?? [];
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
    const client = this._attempt?.client;
    if (this._state.kind !== 'running' || !client) {
      throw new SdkError(SdkErrorCode.NotConnected, `Server "${this.name}" is not running (${describeState(this._state)})`);
    }
    return client;
  }

  /** Where the running server is reached (serverOrigin.ts: its resolved URL or command line), undefined unless running; sent tasks are bound to it. */
  get origin(): ServerOrigin | undefined {
    return this._state.kind === 'running' ? this._attempt?.origin : undefined;
  }

  /** The server's capabilities, when running. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this._state.kind === 'running' ? this._state.capabilities : undefined;
  }

  /** Keeps the server from starting, with the reason shown to the user (stops it if running). */
  async block(reason: string): Promise<void> {
    this._restarts.cancel();
    await this._teardown(reason);
    this._setState({ kind: 'blocked', reason });
  }

  /** Starts the server (no-op if starting or running). Resolves when running; rejects with the reason otherwise. */
  start(): Promise<void> {
    if (this._isDisposed) return Promise.reject(new Error(`Connection to "${this.name}" is disposed`));
    if (this._state.kind === 'running') return Promise.resolve();
    if (this._startPromise) return this._startPromise;
    this._restarts.cancel();
    const p = this._connect(1).finally(() => {
      if (this._startPromise === p) this._startPromise = undefined;
    });
    this._startPromise = p;
    return p;
  }

  /** Stops the server; pending requests are aborted, received tasks still running are cancelled. */
  async stop(): Promise<void> {
    this._restarts.reset();
    // Stopped on purpose: its HTTP session is ended (below) and not offered again.
    this._sessions.forget(this._resolver.dialledUrl);
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
    return signInAndRestart(this._signInTarget(), auth, signal);
  }

  /**
   * Forgets the server's tokens, refresh tokens and client registrations, then reconnects (which
   * asks for a sign-in) — only if it was connected or trying to be: a stopped or blocked server
   * only forgets, nothing is started or contacted.
   */
  async signOut(): Promise<void> {
    if (this._options.auth) return signOutAndReconnect(this._signInTarget(), this._options.auth);
  }

  /** Stops the server and aborts everything pending; no state change is announced any more. */
  override dispose(): void {
    if (this._isDisposed) return;
    // First: the pending restart is cancelled and the emitters are silent before the teardown starts.
    super.dispose();
    // The window closes or reloads: an HTTP session stays open on the server, to be resumed.
    void this._teardown('the connection was disposed', { endSession: false });
    this._state = { kind: 'stopped' };
  }

  /**
   * Disposes the connection because its definition was removed or changed (registry.ts): as
   * {@link dispose}, but a server the server host runs is ended too, as a process the window
   * spawned is — not left for a next window that will not ask for it.
   */
  retire(): void {
    if (this._isDisposed) return;
    super.dispose();
    // (A Streamable HTTP session stays kept, as on dispose: a definition changed back may resume it.)
    if (this.definition.transport.type === 'stdio') this._sessions.forget(undefined);
    void this._teardown('the server was removed or changed', { endSession: false, endProcess: true });
    this._state = { kind: 'stopped' };
  }

  private _signInTarget(): SignInTarget {
    return {
      name: this.name,
      log: this._log,
      passGate: () => this._passGate(),
      httpUrl: () => this._resolver.httpUrl(),
      isActive: () => this._state.kind !== 'stopped' && this._state.kind !== 'blocked',
      stop: () => this.stop(),
      start: () => this.start(),
    };
  }

  /**
   * Asks the gate (config/gate.ts) whether to connect now: `true`, or the reason not to — then
   * the connection is blocked with it, unless it was stopped, blocked or disposed while the gate
   * decided (a question to the user can take a while).
   */
  private async _passGate(): Promise<ConnectVerdict> {
    const gate = this._options.gate;
    if (!gate) return true;
    const asked = this._generation;
    const verdict = await gate.mayConnect(this.definition);
    if (this._isDisposed || asked !== this._generation) return `"${this.name}" was stopped while its start was being decided`;
    if (!passes(verdict)) await this.block(verdict);
    return verdict;
  }

  private async _connect(attempt: number): Promise<void> {
    // Every connect, the first and each restart, passes the gate before anything is resolved or spawned.
    const verdict = await this._passGate();
    if (!passes(verdict)) return;
    const generation = ++this._generation;
    this._setState({ kind: 'starting', attempt });
    this._output.reset();
    this._closeCause = undefined;
    let transportDef: TransportDefinition;
    try {
      transportDef = withApprovedEnvFile(await this._resolver.resolve(), verdict);
    } catch (e) {
      return this._fail(generation, `Cannot start "${this.name}": ${errorMessage(e)}`, false);
    }
    // Stopped while asked for an input: nothing is made for a server that is no longer starting.
    if (generation !== this._generation) return;
    const current = new ConnectionAttempt(this._attemptSetup(generation), transportDef);
    this._attempt = current;
    const offer = this._sessions.offer(transportDef, this._options.transportFactory !== undefined, current.hosted !== undefined);
    let client: HostClient;
    try {
      client = await current.open(offer.saved);
      this._resolver.dialled(transportDef);
    } catch (e) {
      return this._fail(generation, `Cannot start "${this.name}": ${errorMessage(e)}`, false);
    }
    const timeout = this._options.initializeTimeoutMs ?? 30_000;
    try {
      await current.connect(timeout);
    } catch (e) {
      const stop = authStopOf(e, current.errors, transportDef, this._options.auth);
      if (stop?.kind === 'sign-in') return stopForSignIn(this._authStopTarget(generation), true);
      if (stop) return stopForRejectedCredentials(this._authStopTarget(generation), stop.code, stop.issuer);
      const reason = current.errors.startError ?? startFailureMessage(e, current.target);
      // Retried with the crash backoff: a server started before its dependency (a port, a file) comes up by itself.
      return this._fail(generation, `"${this.name}" failed to start: ${reason}${this._output.stderrSummary()}`, true);
    }
    if (generation !== this._generation) return;
    let session: SessionOutcome;
    try {
      session = await this._sessions.settle(offer, client, current.transport!, timeout);
    } catch (e) {
      // Not a refusal of the session (the server is down, say): a start that failed, tried again; the session is still kept.
      return this._fail(generation, `"${this.name}" failed to start: ${startFailureMessage(e, current.target)}`, true);
    }
    if (generation !== this._generation) return;
    if (session.kind === 'refused') {
      // The server no longer has it (it restarted, or ended it): a new session on this same try, with no
      // wait and nothing asked of the user; what was made in the old one may be gone with it.
      this._nextContinuity = { kind: 'new-session', detail: `it no longer had the session of before, as after a restart: ${session.refusal}` };
      void this._teardown('its session was refused');
      return this._connect(attempt);
    }
    // A stdio server of before reattached in the server host is the same process, in the same session: its tasks go on.
    this._continuity =
      session.kind === 'resumed'
        ? { kind: 'resumed' }
        : (this._nextContinuity ?? (transportDef.type === 'stdio' ? { kind: 'new-process', ...(session.kind === 'new' && session.replaced ? { detail: session.replaced } : {}) } : { kind: 'first' }));
    this._nextContinuity = undefined;
    const running = current.established();
    this._restarts.succeeded();
    this._setState({ kind: 'running', ...running });
  }

  /** What an attempt of this generation is told of its connection (attempt.ts). */
  private _attemptSetup(generation: number): AttemptSetup {
    return {
      definition: this.definition,
      options: this._options,
      sides: this.sides,
      log: this._log,
      output: this._output,
      phase: () => (generation !== this._generation ? 'stale' : this._state.kind === 'starting' || this._state.kind === 'running' ? this._state.kind : 'other'),
      unauthorizedWhileRunning: () => void stopForSignIn(this._authStopTarget(generation)),
      lost: (cause) => this._lost(generation, cause),
      sessionGone: (refusal) => this._sessionGone(generation, refusal),
      oversized: (limit) => (this._closeCause = `"${this.name}" sent a message larger than the ${formatBytes(limit)} limit; the connection was closed`),
      closed: () => this._onClosed(generation),
      elicitationComplete: (id) => this._onDidCompleteElicitation.fire(id),
      notification: (m) => this._onDidReceiveNotification.fire(m),
    };
  }

  private _onClosed(generation: number): void {
    if (generation !== this._generation || this._isDisposed) return;
    // Starting: the connect() failure path reports it.
    if (this._state.kind !== 'running') return;
    const transport = this._attempt?.transport;
    if (transport instanceof HostedTransport && transport.end?.kind === 'taken') {
      // Another window reattached to this server: it is that window's now. Not taken back (the two would
      // take it from each other in turn); Start here takes it back when the user asks.
      const message = `"${this.name}" is now used by another window, which attached to it in the server host`;
      this._log.warn(message);
      this._abortAll(`the connection to "${this.name}" closed`);
      void this._teardown('another window took the server', { endSession: false });
      this._setState({ kind: 'error', message });
      return;
    }
    const closed = unexpectedClose({ name: this.name, stdio: this.definition.transport.type === 'stdio' }, transport, this._output);
    this._log.warn(closed.logLine);
    if (closed.processEnded) this._nextContinuity = { kind: 'new-process', detail: closed.processEnded };
    this._abortAll(`the connection to "${this.name}" closed`);
    void this._teardown('the connection closed');
    this._scheduleRestart(this._closeCause ?? closed.reason);
  }

  /** The running server did not answer when asked whether it is still there: the connection is lost, tried again. */
  private _lost(generation: number, cause: string): void {
    if (generation !== this._generation || this._state.kind !== 'running') return;
    const reason = `"${this.name}" is unreachable: ${cause}`;
    this._log.warn(reason);
    this._abortAll(`the connection to "${this.name}" was lost`);
    void this._teardown('the server is unreachable');
    this._scheduleRestart(reason);
  }

  /**
   * The running server answered the health check that it no longer has the session (it restarted
   * while nothing showed it, or it ended the session): a new session at once, on this same try —
   * no backoff wait, nothing asked of the user. What was made in the old session may be gone with it
   * (the tracker learns so from the continuity). A server that refuses its new session again
   * within {@link SESSION_REPLACED_AGAIN_MS} is treated as lost instead, so a server that forgets
   * every session is retried with the crash backoff, not at once in a loop.
   */
  private _sessionGone(generation: number, refusal: string): void {
    if (generation !== this._generation || this._state.kind !== 'running') return;
    const now = Date.now();
    if (this._sessionReplacedAt !== undefined && now - this._sessionReplacedAt < SESSION_REPLACED_AGAIN_MS) {
      return this._lost(generation, `it refused its session again (${refusal})`);
    }
    this._sessionReplacedAt = now;
    this._log.warn(`"${this.name}" no longer has its session (${refusal}); starting a new one`);
    this._sessions.forget(this._resolver.dialledUrl);
    this._nextContinuity = { kind: 'new-session', detail: `it no longer had the session of before, as after a restart: ${refusal}` };
    this._abortAll(`the session with "${this.name}" ended`);
    // The server does not have the session: there is nothing to end on its side.
    void this._teardown('its session was refused', { endSession: false });
    const p: Promise<void> = this._connect(1)
      .catch(() => undefined)
      .finally(() => {
        if (this._startPromise === p) this._startPromise = undefined;
      });
    this._startPromise = p;
  }

  /** What stopping at an OAuth state (auth/authStops.ts) needs of this connection, for an attempt of `generation`. */
  private _authStopTarget(generation: number): AuthStopTarget {
    return {
      name: this.name,
      configFile: this.definition.source.file,
      log: this._log,
      auth: this._options.auth,
      dialledUrl: () => this._resolver.dialledUrl,
      isCurrent: () => generation === this._generation,
      abortAll: (reason) => this._abortAll(reason),
      teardown: (reason) => void this._teardown(reason),
      setState: (state) => this._setState(state),
    };
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

  /** After a crash or failed start: a restart with backoff, or giving up (restartPolicy.ts). */
  private _scheduleRestart(reason: string): void {
    // Called after the teardown: a stop/start/dispose meanwhile moves the generation on and cancels this restart.
    const generation = this._generation;
    const how = { http: this.definition.transport.type !== 'stdio', keepTrying: this._options.hasWork?.() === true };
    const plan = this._restarts.schedule(reason, how, (attempt) => {
      if (this._isDisposed || generation !== this._generation) return;
      const p: Promise<void> = this._connect(attempt)
        .catch(() => undefined)
        .finally(() => {
          if (this._startPromise === p) this._startPromise = undefined;
        });
      this._startPromise = p;
    });
    switch (plan.kind) {
      case 'give-up':
        this._log.error(plan.message);
        this._setState({ kind: 'error', message: plan.message });
        return;
      case 'retry':
        this._log.warn(plan.logLine);
        this._setState({ kind: 'error', message: plan.message, retryAt: plan.retryAt });
        return;
    }
  }

  private async _teardown(reason: string, { endSession = true, endProcess = endSession }: { readonly endSession?: boolean; readonly endProcess?: boolean } = {}): Promise<void> {
    this._generation++;
    const ended = this._attempt;
    this._attempt = undefined;
    this._abortAll(`cancelled: ${reason}`);
    await ended?.close(endSession, !endProcess);
  }

  /** What runs for the server on this host (received tasks) is aborted, on every side. */
  private _abortAll(reason: string): void {
    for (const side of this.sides) side.abortAll?.(reason);
  }

  private _setState(state: ConnectionState): void {
    if (this._isDisposed) return;
    // Error messages are shown in the tree and in notifications: no secrets there either.
    this._state = state.kind === 'error' ? { ...state, message: this._log.redactor.redactText(state.message) } : state;
    this._onDidChangeState.fire(this._state);
  }
}
