/**
 * One MCP server connection: an SDK `Client` over stdio or Streamable HTTP, its observable
 * state, crash restarts with backoff, JSON-RPC tracing, and the receiver side of tasks
 * (sampling and elicitation requests answered through the {@link TaskLedger}).
 */
import { readFile } from 'node:fs/promises';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Implementation,
  type JSONRPCMessage,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { boundedFetch, formatBytes } from './boundedFetch.js';
import { LogThrottle } from '../base/logThrottle.js';
import { parseEnvFile, resolveTransportWithSecrets, type ServerDefinition, type TransportDefinition, type VariableContext } from '../config/config.js';
import { errorMessage } from '../base/errors.js';
import { DisposableStore, Emitter, type Event, type IDisposable } from '../base/events.js';
import { HOST_CAPABILITIES, HostClient } from './hostClient.js';
import type { LedgerScope, TaskLedger } from '../receiver/ledger.js';
import { NULL_LOG, type ServerLog } from '../base/log.js';
import { describeCommandLine, describeEnv, describeHeaders, isSecretName, redactingLog, type RedactingLog } from '../base/redact.js';

export { NULL_LOG, type ServerLog } from '../base/log.js';

/** Connection state, observable through {@link McpConnection.onDidChangeState}. */
export type ConnectionState =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'starting'; readonly attempt: number }
  | {
      readonly kind: 'running';
      readonly serverInfo?: Implementation;
      readonly capabilities: ServerCapabilities;
      readonly protocolVersion?: string;
    }
  | { readonly kind: 'error'; readonly message: string; readonly retryAt?: number }
  /** Not started on purpose (e.g. a workspace stdio server in an untrusted workspace). */
  | { readonly kind: 'blocked'; readonly reason: string };

/** What a responder knows about the request it answers. */
export interface ResponderContext {
  readonly serverId: string;
  readonly serverName: string;
  /** The definition of the server asking: key what the user allows by its identity, never by name. */
  readonly definition: ServerDefinition;
  /** Aborted when the request or its task is cancelled, or the connection closes. */
  readonly signal: AbortSignal;
  /** Disposed when the work ends (close prompts, cancel model requests). */
  readonly store: DisposableStore;
  /** The ledger task this request became, when it was task-augmented. */
  readonly taskId?: string;
  /** The server's own task this request belongs to (R-RESULT-4: sent on a `tasks/result` stream). */
  readonly relatedTaskId?: string;
  /** Marks the received task as waiting for the user (no-op for plain requests). */
  setWaitingForUser(waiting: boolean, statusMessage?: string): void;
}

/** Answers the requests servers send to this host. Implemented by the UI (or deterministically, headless). */
export interface HostResponders {
  sampling(params: CreateMessageRequest['params'], ctx: ResponderContext): Promise<CreateMessageResult>;
  elicitation(params: ElicitRequest['params'], ctx: ResponderContext): Promise<ElicitResult>;
}

/** How a crashing server is restarted. */
export interface RestartPolicy {
  /** Crashes tolerated within `windowMs` before giving up. */
  readonly maxCrashes: number;
  readonly windowMs: number;
  /** Delay before the n-th restart: `baseDelayMs * 2^(n-1)`, at most `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { maxCrashes: 5, windowMs: 5 * 60_000, baseDelayMs: 1000, maxDelayMs: 30_000 };

export interface ConnectionOptions {
  readonly ledger: TaskLedger;
  readonly responders: HostResponders;
  readonly log?: ServerLog;
  readonly variables: VariableContext;
  readonly clientInfo?: Implementation;
  readonly capabilities?: ClientCapabilities;
  readonly restart?: Partial<RestartPolicy>;
  /** Milliseconds to wait for `initialize`. */
  readonly initializeTimeoutMs?: number;
  /**
   * Makes the transport instead of spawning/dialling from the resolved definition (e.g. the
   * SDK's in-memory linked transport in benchmarks and tests). Everything else (handlers,
   * ledger scope, tracing, state) is the same as for a real server.
   */
  readonly transportFactory?: (def: TransportDefinition) => Transport | Promise<Transport>;
}

const STDERR_TAIL_LINES = 20;

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
  private _crashes: number[] = [];
  private _restartTimer?: NodeJS.Timeout;
  private _stderrTail: string[] = [];
  /** Why the transport closed itself (e.g. an oversized message), for the state message. */
  private _closeCause?: string;
  private _generation = 0;
  private _disposed = false;
  /** Every line this connection logs goes through its redactor (see {@link RedactingLog}). */
  private readonly _log: RedactingLog;
  readonly scope: LedgerScope;
  private readonly _restart: RestartPolicy;

  constructor(
    readonly definition: ServerDefinition,
    private readonly _options: ConnectionOptions,
  ) {
    this._log = redactingLog(_options.log ?? NULL_LOG);
    this._restart = { ...DEFAULT_RESTART_POLICY, ..._options.restart };
    this.scope = _options.ledger.scope(definition.id, definition.name);
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

  /** The connected SDK client; throws unless running. */
  get client(): HostClient {
    if (this._state.kind !== 'running' || !this._client) {
      throw new McpError(ErrorCode.ConnectionClosed, `Server "${this.name}" is not running (${describeState(this._state)})`);
    }
    return this._client;
  }

  /** The server's capabilities, when running. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this._state.kind === 'running' ? this._state.capabilities : undefined;
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
    this._crashes = [];
    await this._teardown('stopped by the user');
    this._setState({ kind: 'stopped' });
  }

  /** Stops, then starts again (crash count reset). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._clearRestartTimer();
    void this._teardown('the connection was disposed');
    this._state = { kind: 'stopped' };
    this._onDidChangeState.dispose();
    this._onDidCompleteElicitation.dispose();
    this._onDidReceiveNotification.dispose();
  }

  // ---------------------------------------------------------------------------------------

  private async _connect(attempt: number): Promise<void> {
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
    } catch (e) {
      return this._fail(generation, `Cannot start "${this.name}": ${errorMessage(e)}`, false);
    }
    let transport: Transport;
    try {
      transport = this._options.transportFactory
        ? await this._options.transportFactory(transportDef)
        : await this._createTransport(transportDef, session);
    } catch (e) {
      return this._fail(generation, `Cannot start "${this.name}": ${errorMessage(e)}`, false);
    }
    const tracing = new TracingTransport(transport, this._log);
    const client = new HostClient(this._options.clientInfo ?? { name: 'mcp-tasks-vscode', version: '0.1.0' }, {
      capabilities: this._options.capabilities ?? HOST_CAPABILITIES,
      taskStore: this.scope,
    });
    this._client = client;
    this._transport = transport;
    this._installHandlers(client, session);

    // A transport error while starting (garbage on stdout, spawn failure) fails the start at once.
    const protocolErrors = new LogThrottle();
    const startAbort = new AbortController();
    let startError: string | undefined;
    client.onerror = (err) => {
      // Server-controlled text of any length (a 50 MB reply to an unknown id is quoted whole by the SDK).
      const msg = truncate(errorMessage(err));
      if (protocolErrors.take((summary) => this._log.warn(`protocol errors: ${summary}`))) this._log.warn(`protocol error: ${msg}`);
      const oversized = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(msg);
      if (oversized && generation === this._generation) this._closeCause = `"${this.name}" sent a message larger than the ${formatBytes(Number(oversized[1]))} limit; the connection was closed`;
      if (this._state.kind === 'starting' && generation === this._generation) {
        startError ??= msg;
        startAbort.abort(new Error(msg));
      } else if (this._state.kind === 'running' && generation === this._generation && transportDef.type === 'http') {
        // An HTTP server that went away does not close anything: ask it whether it is still there.
        this._checkHealth(client, generation);
      }
    };
    client.onclose = () => this._onClosed(generation);

    try {
      await client.connect(tracing, { signal: startAbort.signal, timeout: this._options.initializeTimeoutMs ?? 30_000 });
    } catch (e) {
      const reason = startError ?? errorMessage(e);
      return this._fail(generation, `"${this.name}" failed to start: ${reason}${this._stderrSummary()}`, attempt > 1);
    }
    if (generation !== this._generation) return;
    const caps = client.getServerCapabilities() ?? {};
    this._log.info(`connected: ${client.getServerVersion()?.name ?? 'server'} ${client.getServerVersion()?.version ?? ''} (${transportDef.type})`);
    this._setState({ kind: 'running', serverInfo: client.getServerVersion(), capabilities: caps, protocolVersion: transportProtocolVersion(tracing) });
  }

  private async _createTransport(def: TransportDefinition, session: DisposableStore): Promise<Transport> {
    if (def.type === 'http') {
      let url: URL;
      try {
        url = new URL(def.url);
      } catch {
        throw new Error(`"url" is not a valid URL: ${def.url}`);
      }
      const t = new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...def.headers } }, fetch: boundedFetch() });
      const headers = describeHeaders(def.headers);
      this._log.info(`connecting: ${def.url}${headers ? ` (headers: ${headers})` : ''}`);
      return t;
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    if (def.envFile) {
      let text: string;
      try {
        text = await readFile(def.envFile, 'utf8');
      } catch (e) {
        throw new Error(`cannot read envFile ${def.envFile}: ${errorMessage(e)}`);
      }
      Object.assign(env, parseEnvFile(text));
    }
    for (const [k, v] of Object.entries(def.env)) {
      if (v === null) delete env[k];
      else env[k] = v;
    }
    // Whatever the server inherits under a secret-looking name stays out of the log if it echoes it.
    this._log.redactor.add(Object.entries(env).flatMap(([k, v]) => (isSecretName(k) ? [v] : [])));
    const t = new StdioClientTransport({ command: def.command, args: [...def.args], env, cwd: def.cwd, stderr: 'pipe' });
    const stderr = t.stderr;
    if (stderr) {
      let partial = '';
      const onData = (chunk: Buffer | string) => {
        const text = partial + chunk.toString();
        const lines = text.split(/\r?\n/);
        partial = lines.pop() ?? '';
        for (const line of lines) this._onStderrLine(line);
      };
      stderr.on('data', onData);
      session.add({ dispose: () => stderr.off('data', onData) });
    }
    const envText = describeEnv(def.env);
    this._log.info(`starting: ${describeCommandLine(def.command, def.args)}${def.cwd ? ` (cwd ${def.cwd})` : ''}${envText ? ` (env: ${envText})` : ''}`);
    return t;
  }

  private _onStderrLine(line: string): void {
    if (!line) return;
    this._stderrTail.push(line);
    if (this._stderrTail.length > STDERR_TAIL_LINES) this._stderrTail.shift();
    this._log.info(`[stderr] ${line}`);
  }

  private _stderrSummary(): string {
    const tail = this._stderrTail.slice(-3).join(' | ');
    return tail ? ` (stderr: ${tail.slice(0, 400)})` : '';
  }

  private _installHandlers(client: HostClient, session: DisposableStore): void {
    const responders = this._options.responders;
    const scope = this.scope;
    const serve = <P extends { task?: { ttl?: number | null }; _meta?: Record<string, unknown> }, R extends Result>(
      method: string,
      params: P,
      requestId: string | number,
      signal: AbortSignal,
      respond: (params: P, ctx: ResponderContext) => Promise<R>,
    ): Promise<R | { task: import('@modelcontextprotocol/sdk/types.js').Task }> => {
      const relatedTaskId = relatedTaskOf(params);
      if (params.task) {
        return (async () => {
          const { task: _taskParams, ...plainParams } = params;
          const task = await scope.createTask({ ttl: params.task?.ttl ?? undefined }, requestId, { method, params: plainParams });
          scope.run(task.taskId, (workSignal, store) =>
            respond(plainParams as P, {
              serverId: this.id,
              serverName: this.name,
              definition: this.definition,
              signal: workSignal,
              store,
              taskId: task.taskId,
              relatedTaskId,
              setWaitingForUser: (w, m) => scope.setWaitingForUser(task.taskId, w, m),
            }),
          );
          return { task };
        })();
      }
      const store = new DisposableStore();
      return respond(params, {
        serverId: this.id,
        serverName: this.name,
        definition: this.definition,
        signal,
        store,
        relatedTaskId,
        setWaitingForUser: () => undefined,
      }).finally(() => store.dispose());
    };
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      serve('sampling/createMessage', request.params, extra.requestId, extra.signal, (p, ctx) => responders.sampling(p, ctx)),
    );
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      serve('elicitation/create', request.params, extra.requestId, extra.signal, (p, ctx) => responders.elicitation(p, ctx)),
    );
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
      this._onDidCompleteElicitation.fire(n.params.elicitationId);
    });
    client.fallbackNotificationHandler = async (n) => {
      this._onDidReceiveNotification.fire({ jsonrpc: '2.0', ...n } as JSONRPCMessage);
    };

    // R-NOTIFY-1: tell the server about every status change of its tasks (no related-task metadata).
    // Not on creation: the CreateTaskResult already carries the new `working` task, and a
    // notification there went out *before* that answer (for a task id the server did not know
    // yet), adding a message to every task's critical path — 1.3× the SDK's CPU per received task
    // and its CreateTaskResult p99 (bench/, row 1). The SDK's own receivers do the same.
    session.add(
      this._options.ledger.onDidChange((c) => {
        if (c.kind === 'created' || c.scopeId !== this.id || !c.statusChanged || this._client !== client || this._state.kind !== 'running') return;
        client.notification({ method: 'notifications/tasks/status', params: { ...c.task } }).catch((e) => {
          this._log.debug(`could not send notifications/tasks/status: ${errorMessage(e)}`);
        });
      }),
    );
  }

  private _onClosed(generation: number): void {
    if (generation !== this._generation || this._disposed) return;
    const wasRunning = this._state.kind === 'running';
    const isStdio = this.definition.transport.type === 'stdio';
    if (this._state.kind === 'starting') return; // the connect() failure path reports it
    if (!wasRunning) return;
    this._log.warn(`connection closed unexpectedly${this._stderrSummary()}`);
    this.scope.abortAll(`the connection to "${this.name}" closed`);
    void this._teardown('the connection closed');
    this._scheduleRestart(this._closeCause ?? (isStdio ? `"${this.name}" exited unexpectedly${this._stderrSummary()}` : `The connection to "${this.name}" closed`));
  }

  private _healthCheck?: Promise<void>;

  /** Pings a running HTTP server after a transport error; if it does not answer, the connection is lost. */
  private _checkHealth(client: HostClient, generation: number): void {
    if (this._healthCheck) return;
    this._healthCheck = client
      .ping({ timeout: 5_000 })
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

  private _fail(generation: number, unredacted: string, crashed: boolean): void {
    if (generation !== this._generation) return;
    const message = this._log.redactor.redactText(unredacted);
    this._log.error(message);
    void this._teardown('start failed');
    if (crashed) {
      this._scheduleRestart(message);
      throw new Error(message);
    }
    this._setState({ kind: 'error', message });
    throw new Error(message);
  }

  /** Backoff restart after a crash; gives up after `maxCrashes` within `windowMs`. */
  private _scheduleRestart(reason: string): void {
    // Called after the teardown: a stop/start/dispose meanwhile moves the generation on and cancels this restart.
    const generation = this._generation;
    const now = Date.now();
    this._crashes = this._crashes.filter((t) => now - t < this._restart.windowMs);
    this._crashes.push(now);
    const n = this._crashes.length;
    if (n >= this._restart.maxCrashes) {
      const message =
        this.definition.transport.type === 'stdio'
          ? `${reason}. It crashed ${n} times within ${Math.round(this._restart.windowMs / 1000)} s; not restarting again. Fix the server, then use "Restart Server".`
          : `${reason}. ${n} connection failures within ${Math.round(this._restart.windowMs / 1000)} s; not reconnecting again. Use "Restart Server" when it is back.`;
      this._log.error(message);
      this._setState({ kind: 'error', message });
      return;
    }
    const delay = Math.min(this._restart.baseDelayMs * 2 ** (n - 1), this._restart.maxDelayMs);
    const retryAt = now + delay;
    const verb = this.definition.transport.type === 'stdio' ? 'restarting' : 'reconnecting';
    this._log.warn(`${reason}; ${verb} in ${delay} ms (failure ${n} of ${this._restart.maxCrashes})`);
    this._setState({ kind: 'error', message: `${reason}; ${verb} in ${Math.ceil(delay / 1000)} s`, retryAt });
    this._restartTimer = setTimeout(() => {
      this._restartTimer = undefined;
      if (this._disposed || generation !== this._generation) return;
      const p: Promise<void> = this._connect(n + 1)
        .catch(() => undefined)
        .finally(() => {
          if (this._startPromise === p) this._startPromise = undefined;
        });
      this._startPromise = p;
    }, delay);
    this._restartTimer.unref?.();
  }

  private async _teardown(reason: string): Promise<void> {
    this._generation++;
    const client = this._client;
    const session = this._session;
    const transport = this._transport;
    this._client = undefined;
    this._session = undefined;
    this._transport = undefined;
    this.scope.abortAll(`cancelled: ${reason}`);
    session?.dispose();
    if (client) {
      client.onclose = undefined;
      client.onerror = undefined;
      // End the HTTP session on the server too (DELETE), without waiting long for a server that is gone.
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
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

/** One line describing a state, for tooltips and errors. */
export function describeState(s: ConnectionState): string {
  switch (s.kind) {
    case 'stopped':
      return 'stopped';
    case 'starting':
      return s.attempt > 1 ? `starting (attempt ${s.attempt})` : 'starting';
    case 'running':
      return `running${s.serverInfo ? ` (${s.serverInfo.name} ${s.serverInfo.version})` : ''}`;
    case 'error':
      return `error: ${s.message}`;
    case 'blocked':
      return `not started: ${s.reason}`;
  }
}

function relatedTaskOf(params: { _meta?: Record<string, unknown> }): string | undefined {
  const meta = params._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof meta?.taskId === 'string' ? meta.taskId : undefined;
}

function transportProtocolVersion(t: TracingTransport): string | undefined {
  return t.protocolVersion;
}

/** Wraps a transport to log every JSON-RPC message at trace level. */
class TracingTransport implements Transport {
  protocolVersion?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly _inner: Transport,
    private readonly _log: RedactingLog,
  ) {
    _inner.onclose = () => this.onclose?.();
    _inner.onerror = (e) => this.onerror?.(e);
    _inner.onmessage = (message, extra) => {
      if (this._log.traceEnabled !== false) this._log.traceJson('◀ ', message);
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this._inner.sessionId;
  }

  start(): Promise<void> {
    return this._inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // Formatting costs a JSON.stringify per message (~5 % of a task's CPU in bench/); skip it unless traced.
    if (this._log.traceEnabled !== false) this._log.traceJson('▶ ', message);
    return this._inner.send(message, options);
  }

  close(): Promise<void> {
    return this._inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this._inner.setProtocolVersion?.(version);
  }
}

function truncate(s: string): string {
  // A copy rather than a slice: V8 keeps the whole parent string alive behind a slice.
  return s.length > 4000 ? `${Buffer.from(s.slice(0, 4000)).toString()}… (${s.length} chars)` : s;
}
