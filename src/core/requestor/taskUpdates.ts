/**
 * How a sent task's record takes in what the server says of it: an answer to `tasks/get` or
 * `tasks/cancel`, a listed task, or a status notification (R-NOTIFY-2: an extra update, never a
 * replacement for polling), heard through one listener per connection.
 */
import type { Task } from '@modelcontextprotocol/client';
import { Disposable, DisposableStore, toDisposable } from '../base/lifecycle.js';
import { isTerminal } from '../base/taskState.js';
import type { McpConnection } from '../connection/connection.js';
import { sameOrigin } from '../connection/serverOrigin.js';
import { afterUpdate } from './polling.js';
import type { SentTask } from './sentTask.js';
import { takeInline } from './taskInput.js';
import type { TaskWire, WireTask } from './wire/taskWire.js';

/** Takes in the server's view of the task; a terminal status never moves back, and an answer that changes nothing the task shows is no change. */
export function applyTask(sent: SentTask, wireTask: WireTask): void {
  const rec = sent.record;
  if (rec.task && isTerminal(rec.task.status) && !isTerminal(wireTask.status)) return; // never move back
  const before = rec.task;
  const outcome = rec.outcome;
  rec.task = takeInline(sent, wireTask); // a fresh object: no copy
  // No event, no redraw of its row (a redraw makes VS Code forget the rows under it for a moment,
  // so a click on one of them lost its task), no write to storage.
  if (before && rec.outcome === outcome && sameTaskState(before, rec.task)) return;
  sent.changed();
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

/** Where the listeners find the task a notification is about, and how its connection's wire reads it. */
export interface StatusListenersHost {
  get(key: string): SentTask | undefined;
  wireFor(connection: McpConnection): TaskWire;
}

/** One listener per connection for the status notifications of the tasks tracked live through it. */
export class TaskStatusListeners extends Disposable {
  private readonly _byServer = new Map<string, { connection: McpConnection; store: DisposableStore }>();

  constructor(private readonly _tasks: StatusListenersHost) {
    super();
    this._register(
      toDisposable(() => {
        for (const s of this._byServer.values()) s.store.dispose();
        this._byServer.clear();
      }),
    );
  }

  /** Listens on `connection` (once; a new connection of the same server replaces the old one's listener). */
  watch(connection: McpConnection): void {
    const existing = this._byServer.get(connection.id);
    if (existing?.connection === connection) return;
    existing?.store.dispose();
    const store = new DisposableStore();
    this._byServer.set(connection.id, { connection, store });
    store.add(connection.onDidReceiveNotification((msg) => this._heard(connection, msg)));
  }

  private _heard(connection: McpConnection, msg: unknown): void {
    // Only a task tracked live through this connection can use it: look it up before decoding (a zod parse).
    const id = (msg as { params?: { taskId?: unknown } }).params?.taskId;
    const tracked = typeof id === 'string' ? this._tasks.get(`${connection.id}/${id}`) : undefined;
    if (!isTrackedThrough(tracked, connection)) return;
    const task = this._tasks.wireFor(connection).statusNotification(msg as Parameters<TaskWire['statusNotification']>[0]);
    if (!task) return;
    const sent = this._tasks.get(`${connection.id}/${task.taskId}`);
    if (isTrackedThrough(sent, connection)) {
      applyTask(sent, task);
      afterUpdate(sent, /* extra */ true);
    }
  }
}

/** Whether `sent` is tracked live through `connection`, which still reaches where it was sent (sentOrigin.ts), and not yet at its end. */
function isTrackedThrough(sent: SentTask | undefined, connection: McpConnection): sent is SentTask {
  return sent?.live?.connection === connection && !!sent.record.task && !isTerminal(sent.record.task.status) && sameOrigin(sent.record.sentTo, connection.origin);
}
