/**
 * The set of configured servers and their connections. Applying a new set of definitions
 * starts new servers, restarts changed ones and stops removed ones, without a reload.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ServerDefinition, VariableContext } from '../config/config.js';
import type { ConnectionState, McpConnection, RestartPolicy, ServerLog } from './connection.js';
import type { ConnectionOptions } from './connectionOptions.js';
import type { ServerConnection } from './connectionPort.js';
import { errorMessage } from '../base/errors.js';
import { Emitter, type Event } from '../base/event.js';
import { Disposable, DisposableStore, toDisposable, type IDisposable } from '../base/lifecycle.js';
import type { ServerAuth } from './auth/serverAuth.js';
import type { SessionStore } from './httpSession.js';
import type { ProcessRecorder } from './stdioTransport.js';
import type { ConnectGate } from '../config/gate.js';
import type { StdioHost, StdioHostSettings } from './hostedStdio.js';

export interface RegistryOptions {
  /** The sides each connection installs on its clients (ConnectionOptions.sides). */
  readonly sides?: ConnectionOptions['sides'];
  /** The log of one server (created once per server id). */
  readonly logFor: (definition: ServerDefinition) => ServerLog;
  /** Variable values for a server's definition. */
  readonly variablesFor: (definition: ServerDefinition) => VariableContext;
  /**
   * The gate every connection asks before each connect (config/gate.ts): nothing of a definition
   * is resolved, spawned or contacted before it says `true`. When it changes (an approval revoked),
   * servers it no longer allows are stopped (blocked with its reason).
   */
  readonly gate?: ConnectGate;
  readonly restart?: Partial<RestartPolicy>;
  /** OAuth for an HTTP server (connection/auth/), made once per connection; none: no OAuth. */
  readonly authFor?: (definition: ServerDefinition) => ServerAuth | undefined;
  /** Whether the user has work on a server (see `ConnectionOptions.hasWork`): then it is never given up on. */
  readonly hasWork?: (definition: ServerDefinition) => boolean;
  /** Where Streamable HTTP sessions are kept across windows, to be resumed (connection/httpSession.ts). */
  readonly sessions?: SessionStore;
  /** Where spawned server processes are written down (connection/processJournal.ts). */
  readonly processes?: ProcessRecorder;
  /**
   * The server host stdio servers run in, so they outlive the window (hostedStdio.ts); none: each is
   * spawned by the window (headless, tests, or the user's setting off).
   */
  readonly serverHost?: StdioHostSettings;
  /** Start servers as soon as they are configured (default true). */
  readonly autoStart?: boolean;
}

/** A connection changed state. */
export interface ConnectionStateChange {
  readonly connection: ServerConnection;
  readonly state: ConnectionState;
}

/** Where the servers' state changes are heard: a {@link ServerRegistry}, or {@link statesOf} a few connections. */
export interface ServerStates {
  readonly onDidChangeState: Event<ConnectionStateChange>;
}

/** The state changes of `connections` as one event, for a host with no registry (a test's, the headless client's). */
export function statesOf(connections: readonly ServerConnection[]): ServerStates & IDisposable {
  const emitter = new Emitter<ConnectionStateChange>();
  const subs = connections.map((connection) => connection.onDidChangeState((state) => emitter.fire({ connection, state })));
  return {
    onDidChangeState: emitter.event,
    dispose: () => {
      for (const s of subs) s.dispose();
      emitter.dispose();
    },
  };
}

/** All configured servers. */
export class ServerRegistry extends Disposable implements ServerStates {
  private readonly _entries = new Map<string, { connection: McpConnection; store: DisposableStore }>();
  /** The window's server host, made at the first connection (its client is in the protocol part). */
  private _host?: StdioHost;
  private readonly _onDidChangeConnections = this._register(new Emitter<void>());
  private readonly _onDidChangeState = this._register(new Emitter<ConnectionStateChange>());
  /** Fires when servers are added or removed. */
  readonly onDidChangeConnections: Event<void> = this._onDidChangeConnections.event;
  /** Fires when any connection changes state. */
  readonly onDidChangeState: Event<ConnectionStateChange> = this._onDidChangeState.event;

  constructor(private readonly _options: RegistryOptions) {
    super();
    // Disposed in the reverse order: the gate's subscription, then the connections, then the emitters.
    this._register(
      toDisposable(() => {
        for (const e of this._entries.values()) e.store.dispose();
        this._entries.clear();
      }),
    );
    if (_options.gate) this._register(_options.gate.onDidChange(() => void this._enforceGate()));
  }

  /** Every connection, in configuration order. */
  get connections(): McpConnection[] {
    return [...this._entries.values()].map((e) => e.connection);
  }

  get(id: string): McpConnection | undefined {
    return this._entries.get(id)?.connection;
  }

  /** Replaces the configured servers. Unchanged servers keep running. */
  async setDefinitions(definitions: readonly ServerDefinition[]): Promise<void> {
    const next = new Map(definitions.map((d) => [d.id, d]));
    let changed = false;
    const starts: Promise<void>[] = [];
    for (const [id, entry] of [...this._entries]) {
      const def = next.get(id);
      if (!def || !sameDefinition(def, entry.connection.definition)) {
        this._entries.delete(id);
        // Removed or changed: its process ends (one the server host runs too), as if stopped.
        entry.connection.retire();
        entry.store.dispose();
        if (!def) for (const side of entry.connection.sides) side.serverRemoved?.();
        changed = true;
      }
    }
    for (const def of definitions) {
      if (this._entries.has(def.id)) continue;
      const store = new DisposableStore();
      const connection = store.add(
        new (connectionModule().McpConnection)(def, {
          sides: this._options.sides,
          log: this._options.logFor(def),
          variables: this._options.variablesFor(def),
          restart: this._options.restart,
          auth: this._options.authFor?.(def),
          hasWork: this._options.hasWork && (() => this._options.hasWork!(def)),
          sessions: this._options.sessions,
          processes: this._options.processes,
          gate: this._options.gate,
          serverHost: this._stdioHost(),
        }),
      );
      store.add(connection.onDidChangeState((state) => this._onDidChangeState.fire({ connection, state })));
      this._entries.set(def.id, { connection, store });
      changed = true;
      if (this._options.autoStart !== false) starts.push(this.start(def.id).catch(() => undefined));
    }
    if (changed) this._onDidChangeConnections.fire();
    await Promise.all(starts);
  }

  /** Starts a server unless the gate does not allow it now (then it is marked blocked with the reason). */
  async start(id: string): Promise<void> {
    await this._require(id).start();
  }

  async stop(id: string): Promise<void> {
    await this._require(id).stop();
  }

  async restart(id: string): Promise<void> {
    const c = this._require(id);
    await c.stop();
    await this.start(id);
  }

  /** Re-checks the gate for every server (e.g. the workspace became trusted): blocked ones start (or ask) again, others stop if no longer allowed. */
  async reevaluate(): Promise<void> {
    await Promise.all([
      ...this.connections.filter((c) => c.state.kind === 'blocked').map((c) => c.start().catch((e) => c.log.error(errorMessage(e)))),
      this._enforceGate(),
    ]);
  }

  /** Stops (blocks) every server that is connected, connecting or retrying and that the gate no longer allows. */
  private async _enforceGate(): Promise<void> {
    const gate = this._options.gate;
    if (!gate) return;
    await Promise.all(
      this.connections.map(async (c) => {
        if (isIdle(c.state)) return;
        const verdict = await gate.mayStay(c.definition);
        // Stopped or blocked meanwhile: nothing left to stop.
        if (verdict !== true && !isIdle(c.state)) await c.block(verdict);
      }),
    );
  }

  /** The server host every connection of this window uses (one client, one link to it), if the settings have one. */
  private _stdioHost(): StdioHost | undefined {
    const settings = this._options.serverHost;
    if (!settings) return undefined;
    return (this._host ??= { client: new (connectionModule().ServerHostClient)(settings.launch), graceMs: settings.graceMs, hosts: settings.hosts });
  }

  private _require(id: string): McpConnection {
    const c = this._entries.get(id)?.connection;
    if (!c) throw new Error(`No server with id "${id}" is configured`);
    return c;
  }
}

/**
 * The connection (connection.ts: the SDK, transports, OAuth) is in the protocol part
 * (scripts/lib/lazyParts.mjs): evaluated here, when the first server is configured, not at
 * activation. A `require`, not an `import()`: applying definitions stays one synchronous step,
 * so nothing waits for the part and nothing in between can see half a registry.
 */
function connectionModule(): typeof import('./connection.js') {
  // (The server host's client is made from it too: hostedStdio.ts.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return require('./connection.js') as typeof import('./connection.js');
}

/** Neither connected nor trying to connect. */
function isIdle(state: ConnectionState): boolean {
  return state.kind === 'stopped' || state.kind === 'blocked';
}

function sameDefinition(a: ServerDefinition, b: ServerDefinition): boolean {
  return a.name === b.name && isDeepStrictEqual(a.transport, b.transport) && isDeepStrictEqual(a.inputs, b.inputs) && a.source.file === b.source.file;
}
