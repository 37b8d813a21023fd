/**
 * Push for a sent task through the task wire's side on its connection (taskWireSide.ts), asked for
 * by the tracker. Apart from that side so that the tracker, which activation loads, evaluates
 * nothing of the SDK or the Tasks extension: the side itself is in the protocol part
 * (scripts/lib/lazyParts.mjs), made with the connection.
 */
import type { ClientSide } from '../../connection/clientSide.js';
import type { HostClient } from '../../connection/hostClient.js';

/** The task wire's side as the tracker uses it (TaskWireSide). */
interface WatchingSide extends ClientSide {
  readonly kind: 'task-wire';
  watch(client: HostClient, taskId: string): void;
  unwatch(client: HostClient, taskId: string): void;
}

/** What the tracker asks of a connection to have a task's status pushed. */
export interface WatchedConnection {
  readonly sides: readonly ClientSide[];
  readonly state: { readonly kind: string };
  readonly client: HostClient;
}

function taskWireOf(connection: WatchedConnection): WatchingSide | undefined {
  return connection.sides.find((s): s is WatchingSide => s.kind === 'task-wire');
}

/** Asks for `taskId`'s status to be pushed through the running connection (polling goes on regardless). */
export function watchTask(connection: WatchedConnection, taskId: string): void {
  if (connection.state.kind === 'running') taskWireOf(connection)?.watch(connection.client, taskId);
}

/** Stops asking for `taskId`'s status (it ended, or is no longer followed through this connection). */
export function unwatchTask(connection: WatchedConnection, taskId: string): void {
  if (connection.state.kind === 'running') taskWireOf(connection)?.unwatch(connection.client, taskId);
}

/**
 * Tracking of `taskId` through this connection stopped: its status is no longer pushed, and the
 * progress handler the SDK keeps for the task's creating request is dropped (R-PROGRESS-1 ends with
 * tracking; the SDK only drops it itself for tasks in its own store).
 */
export function stopFollowing(connection: WatchedConnection, taskId: string): void {
  if (connection.state.kind !== 'running') return;
  connection.client.forgetTaskProgress?.(taskId);
  unwatchTask(connection, taskId);
}
