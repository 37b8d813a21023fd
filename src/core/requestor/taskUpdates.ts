/**
 * How a sent task's record takes in what the server says of it: an answer to `tasks/get` or
 * `tasks/cancel`, a listed task, or a status notification (R-NOTIFY-2: an extra update, never a
 * replacement for polling), heard through one listener per connection.
 */
import type { Task } from '@modelcontextprotocol/client';
import { DisposableStore, type IDisposable } from '../base/lifecycle.js';
import { isTerminal } from '../base/taskState.js';
import type { McpConnection } from '../connection/connection.js';
import { afterUpdate } from './polling.js';
import type { SentRecord, TrackerInternals } from './sentRecord.js';
import { takeInline } from './taskInput.js';
import type { WireTask } from './wire/taskWire.js';

/** Takes in the server's view of the task; a terminal status never moves back, and an answer that changes nothing the task shows is no change. */
export function applyTask(t: TrackerInternals, rec: SentRecord, wireTask: WireTask): void {
  if (rec.task && isTerminal(rec.task.status) && !isTerminal(wireTask.status)) return; // never move back
  const before = rec.task;
  const outcome = rec.outcome;
  rec.task = takeInline(rec, wireTask); // a fresh object: no copy
  // No event, no redraw of its row (a redraw makes VS Code forget the rows under it for a moment,
  // so a click on one of them lost its task), no write to storage.
  if (before && rec.outcome === outcome && sameTaskState(before, rec.task)) return;
  t._changed(rec);
}

/** Whether two answers about one task say the same: status, message, times, ttl and interval. */
function sameTaskState(a: Task, b: Task): boolean {
  return (
    a.status === b.status &&
    a.statusMessage === b.statusMessage &&
    a.lastUpdatedAt === b.lastUpdatedAt &&
    a.createdAt === b.createdAt &&
    a.ttl === b.ttl &&
    a.pollInterval === b.pollInterval
  );
}

/** One listener per connection for the status notifications of the tasks tracked live through it. */
export class TaskStatusListeners implements IDisposable {
  private readonly _byServer = new Map<string, { connection: McpConnection; store: DisposableStore }>();

  constructor(private readonly _t: TrackerInternals) {}

  /** Listens on `connection` (once; a new connection of the same server replaces the old one's listener). */
  watch(connection: McpConnection): void {
    const existing = this._byServer.get(connection.id);
    if (existing?.connection === connection) return;
    existing?.store.dispose();
    const store = new DisposableStore();
    this._byServer.set(connection.id, { connection, store });
    store.add(connection.onDidReceiveNotification((msg) => this._heard(connection, msg)));
  }

  dispose(): void {
    for (const s of this._byServer.values()) s.store.dispose();
    this._byServer.clear();
  }

  private _heard(connection: McpConnection, msg: unknown): void {
    const t = this._t;
    // Only a task tracked live through this connection can use it: look it up before decoding (a zod parse).
    const id = (msg as { params?: { taskId?: unknown } }).params?.taskId;
    const tracked = typeof id === 'string' ? t._records.get(`${connection.id}/${id}`) : undefined;
    if (tracked?.live?.connection !== connection || !tracked.task || isTerminal(tracked.task.status)) return;
    const task = t._wire(connection).statusNotification(msg as Parameters<ReturnType<TrackerInternals['_wire']>['statusNotification']>[0]);
    if (!task) return;
    const rec = t._records.get(`${connection.id}/${task.taskId}`);
    if (rec?.live?.connection === connection && rec.task && !isTerminal(rec.task.status)) {
      applyTask(t, rec, task);
      afterUpdate(t, rec, /* extra */ true);
    }
  }
}
