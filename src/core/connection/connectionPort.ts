/**
 * A server connection as its consumers see it — the requestor, the agent, the API, the UI — so
 * they depend on this port, not on the class (`McpConnection` implements it). A test's stand-in
 * implements the part its consumer reads ({@link RequestorConnection} for the tracker).
 */
import type { JSONRPCMessage, ServerCapabilities } from '@modelcontextprotocol/client';
import type { Event } from '../base/event.js';
import type { ServerLog } from '../base/log.js';
import type { ServerDefinition } from '../config/config.js';
import type { ClientSide } from './clientSide.js';
import type { Continuity } from './connectionOptions.js';
import type { ConnectionState } from './connectionState.js';
import type { HostClient } from './hostClient.js';
import type { ServerOrigin } from './serverOrigin.js';

export interface ServerConnection {
  readonly id: string;
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly state: ConnectionState;
  /** The connected SDK client; throws unless running. */
  readonly client: HostClient;
  /** Where the running server is reached; undefined unless running (sent tasks are bound to it). */
  readonly origin: ServerOrigin | undefined;
  readonly serverCapabilities: ServerCapabilities | undefined;
  /** What the server that answers now still knows of before. */
  readonly continuity: Continuity;
  /** The server's log (redacting). */
  readonly log: ServerLog;
  /** What is installed on each of its clients (clientSide.ts): the receiver, the task wire. */
  readonly sides: readonly ClientSide[];
  readonly onDidChangeState: Event<ConnectionState>;
  readonly onDidReceiveNotification: Event<JSONRPCMessage>;
  readonly onDidCompleteElicitation: Event<string>;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  signIn(signal?: AbortSignal): Promise<void>;
  signOut(): Promise<void>;
}

/** What the requestor (the tracker, its sent tasks) asks of a connection. */
export type RequestorConnection = Pick<
  ServerConnection,
  'id' | 'name' | 'definition' | 'state' | 'client' | 'origin' | 'serverCapabilities' | 'continuity' | 'log' | 'sides' | 'onDidReceiveNotification'
>;
