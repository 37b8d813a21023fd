/**
 * A side of this host on a connection: the receiver (the questions a server asks, the tasks it
 * creates here: receiver/wire/receiverSide.ts) and the requestor's 2026-07-28 task wire (the Tasks
 * extension on the transport, routing headers, push: requestor/wire/taskWireSide.ts). Each one
 * installs itself on every attempt's client through this interface, so the connection knows
 * neither: it makes the transport and the client, runs their life, and calls each side's hooks.
 * A connection given no sides only speaks MCP (a tool call in a test or bench needs no ledger).
 */
import type { ClientCapabilities, FetchLike, Transport } from '@modelcontextprotocol/client';
import type { DisposableStore } from '../base/lifecycle.js';
import type { ServerLog } from '../base/log.js';
import type { HostClient } from './hostClient.js';

/** One attempt's client, as a side sees it. */
export interface SideAttempt {
  readonly client: HostClient;
  /** Owns what the side keeps listening to for as long as this attempt lasts. */
  readonly session: DisposableStore;
  readonly log: ServerLog;
  /** Whether `client` is still the connection's running client. */
  readonly isLive: () => boolean;
}

export interface ClientSide {
  /** What it is (`receiver`, `task-wire`), for those who look a side up on a connection. */
  readonly kind: string;
  /**
   * What this side lets the server ask of the client (R-CAP-1), declared in `initialize` and in each
   * 2026-07-28 request's envelope: a connection declares only what its sides answer, so a server never
   * asks a connection for something no side of it would answer.
   */
  readonly capabilities?: ClientCapabilities;
  /** Wraps the fetch of a Streamable HTTP transport (inside the OAuth wrapper). */
  wrapFetch?(fetch: FetchLike): FetchLike;
  /** Wraps the channel the client speaks over (the message bounds and tracing are below it). */
  wrapChannel?(channel: Transport, attempt: SideAttempt): Transport & { close(): Promise<void> };
  /** Installs handlers and listeners on the attempt's client, before it connects. */
  install?(attempt: SideAttempt): void;
  /** The handshake is done: the server's capabilities and revision are known. */
  established?(attempt: SideAttempt): void;
  /** The connection's work here ends (closed, lost, stopped, a sign-in needed): what runs for the server is aborted. */
  abortAll?(reason: string): void;
  /** The server was removed from the configuration (its connection is disposed): what is kept for it is forgotten. */
  serverRemoved?(): void;
}

