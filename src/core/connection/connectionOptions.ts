/** What a connection is built with, and what it tells of the server that answers now. */
import type { ClientCapabilities, Implementation, Transport, VersionNegotiationMode } from '@modelcontextprotocol/client';
import type { ServerLog } from '../base/log.js';
import type { ServerDefinition, TransportDefinition, VariableContext } from '../config/config.js';
import type { ConnectGate } from '../config/gate.js';
import type { ServerAuth } from './auth/serverAuth.js';
import type { SessionStore } from './httpSession.js';
import type { ClientSide } from './clientSide.js';
import type { RestartPolicy } from './restartPolicy.js';
import type { ProcessRecorder } from './stdioTransport.js';
import type { StdioHost } from './hostedStdio.js';

export interface ConnectionOptions {
  /**
   * The sides installed on each client the connection makes (clientSide.ts), made once per
   * connection for its definition: the requestor's task wire and the receiver (its part of the ledger and
   * responders: `hostSides` in requestor/hostSides.ts). None: the connection only speaks MCP —
   * a tool call needs no ledger.
   */
  readonly sides?: (definition: ServerDefinition) => readonly ClientSide[];
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
   * SDK's in-memory linked transport in benchmarks and tests). Everything else (the sides,
   * tracing, state) is the same as for a real server.
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
  /**
   * The server host that runs stdio servers so they outlive the window (hostedStdio.ts); none, or
   * one that does not host a server: the window spawns it itself (headless, tests, the setting off).
   * Its sessions are kept in {@link sessions}.
   */
  readonly serverHost?: StdioHost;
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
