/**
 * The set of configured servers and their connections. Applying a new set of definitions
 * starts new servers, restarts changed ones and stops removed ones, without a reload.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ServerDefinition, VariableContext } from '../config/config.js';
import { McpConnection, type ConnectionState, type HostResponders, type RestartPolicy, type ServerLog } from './connection.js';
import { errorMessage } from '../base/errors.js';
import { DisposableStore, Emitter, type Event, type IDisposable } from '../base/events.js';
import type { TaskLedger } from '../receiver/ledger.js';
import type { ServerAuth } from './auth/serverAuth.js';

export interface RegistryOptions {
  readonly ledger: TaskLedger;
  readonly responders: HostResponders;
  /** The log of one server (created once per server id). */
  readonly logFor: (definition: ServerDefinition) => ServerLog;
  /** Variable values for a server's definition. */
  readonly variablesFor: (definition: ServerDefinition) => VariableContext;
  /**
   * Whether a definition may be started now; a string is the reason it may not. May ask the
   * user first (a promise); nothing of the definition is resolved, spawned or contacted before it says `true`.
   */
  readonly mayStart?: (definition: ServerDefinition) => true | string | Promise<true | string>;
  readonly restart?: Partial<RestartPolicy>;
  /** OAuth for an HTTP server (connection/auth/), made once per connection; none: no OAuth. */
  readonly authFor?: (definition: ServerDefinition) => ServerAuth | undefined;
  /** Start servers as soon as they are configured (default true). */
  readonly autoStart?: boolean;
}

/** A connection changed state. */
export interface ConnectionStateChange {
  readonly connection: McpConnection;
  readonly state: ConnectionState;
}

/** All configured servers. */
export class ServerRegistry implements IDisposable {
  private readonly _entries = new Map<string, { connection: McpConnection; store: DisposableStore }>();
  private readonly _onDidChangeConnections = new Emitter<void>();
  private readonly _onDidChangeState = new Emitter<ConnectionStateChange>();
  /** Fires when servers are added or removed. */
  readonly onDidChangeConnections: Event<void> = this._onDidChangeConnections.event;
  /** Fires when any connection changes state. */
  readonly onDidChangeState: Event<ConnectionStateChange> = this._onDidChangeState.event;

  constructor(private readonly _options: RegistryOptions) {}

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
        entry.store.dispose();
        if (!def) this._options.ledger.deleteScope(id);
        changed = true;
      }
    }
    for (const def of definitions) {
      if (this._entries.has(def.id)) continue;
      const store = new DisposableStore();
      const connection = store.add(
        new McpConnection(def, {
          ledger: this._options.ledger,
          responders: this._options.responders,
          log: this._options.logFor(def),
          variables: this._options.variablesFor(def),
          restart: this._options.restart,
          auth: this._options.authFor?.(def),
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

  /** Starts a server unless it may not start now (then it is marked blocked with the reason). */
  async start(id: string): Promise<void> {
    const c = this._require(id);
    const allowed = await (this._options.mayStart?.(c.definition) ?? true);
    if (allowed !== true) {
      await c.block(allowed);
      return;
    }
    // The definition may have been replaced while the user was asked: start only the one approved.
    if (this._entries.get(id)?.connection !== c) return;
    await c.start();
  }

  async stop(id: string): Promise<void> {
    await this._require(id).stop();
  }

  async restart(id: string): Promise<void> {
    const c = this._require(id);
    await c.stop();
    await this.start(id);
  }

  /** Re-checks `mayStart` for every server (e.g. the workspace became trusted). */
  async reevaluate(): Promise<void> {
    await Promise.all(
      this.connections.map(async (c) => {
        const allowed = await (this._options.mayStart?.(c.definition) ?? true);
        // Blocked for another reason now (trusted, then the first start declined): say the new one.
        if (allowed !== true && (c.state.kind !== 'blocked' || c.state.reason !== allowed)) await c.block(allowed);
        else if (allowed === true && c.state.kind === 'blocked') await c.start().catch((e) => c.log.error(errorMessage(e)));
      }),
    );
  }

  dispose(): void {
    for (const e of this._entries.values()) e.store.dispose();
    this._entries.clear();
    this._onDidChangeConnections.dispose();
    this._onDidChangeState.dispose();
  }

  private _require(id: string): McpConnection {
    const c = this._entries.get(id)?.connection;
    if (!c) throw new Error(`No server with id "${id}" is configured`);
    return c;
  }
}

function sameDefinition(a: ServerDefinition, b: ServerDefinition): boolean {
  return a.name === b.name && isDeepStrictEqual(a.transport, b.transport) && isDeepStrictEqual(a.inputs, b.inputs) && a.source.file === b.source.file;
}
