/**
 * The status notifications of sent tasks (R-NOTIFY-2: an extra update, never a replacement for
 * polling), heard through one listener per connection and handed to the task's drive
 * (taskDrive.ts `take`), which takes them in as it takes a poll's answer.
 */
import type { Task } from '@modelcontextprotocol/client';
import { Disposable, DisposableStore, toDisposable } from '../base/lifecycle.js';
import { LogThrottle } from '../base/logThrottle.js';
import { quoteText } from '../base/quote.js';
import { isTerminal } from '../base/taskState.js';
import type { RequestorConnection } from '../connection/connectionPort.js';
import { receiverOf } from '../receiver/wire/receiverOf.js';
import { sameOrigin } from '../connection/serverOrigin.js';
import type { SentTask } from './sentTask.js';
import type { TaskDrive } from './taskDrive.js';
import type { TaskWire } from './wire/taskWire.js';

/** Where the listeners find the task a notification is about (by its server and the server's task id), and how its connection's wire reads it. */
export interface StatusListenersHost {
  byTaskId(serverId: string, taskId: string): SentTask | undefined;
  /** Whether a call sent through `connection` still waits for the CreateTaskResult that names its task. */
  awaitingName(connection: RequestorConnection): boolean;
  wireFor(connection: RequestorConnection): TaskWire;
}

/**
 * Status notifications about one task are taken in at most once per this many ms: the first at
 * once, the latest of those that came meanwhile when the window closes (a terminal status at once).
 * A server pushing thousands a second for a task (each a real change: a new message, a new time)
 * made as many changes, redraws and writes to storage, and held the extension host's event loop
 * for most of a second (`npm run hostile`, task-push-flood).
 */
export const PUSH_COALESCE_MS = 100;

/**
 * Pushes about a task id no task has yet, kept while a call on the same connection waits for its
 * CreateTaskResult: a server may push before that answer is read (a pipe read can hold the answer
 * and the push at once, and the push is heard before the answer's promise goes on). At most this
 * many ids, the latest push of each; the oldest id goes first.
 */
export const EARLY_PUSHES_MAX = 16;

/** What one connection's listener keeps: its subscription, the open windows by task id, the throttle of its warnings. */
interface Listening {
  readonly connection: RequestorConnection;
  readonly store: DisposableStore;
  readonly windows: Map<string, { latest?: unknown; readonly timer: NodeJS.Timeout }>;
  readonly unknownIds: LogThrottle;
  /** Pushes that came before the task they name was named ({@link EARLY_PUSHES_MAX}). */
  readonly early: Map<string, unknown>;
}

/** One listener per connection for the status notifications of the tasks tracked live through it. */
export class TaskStatusListeners extends Disposable {
  private readonly _byServer = new Map<string, Listening>();

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
  watch(connection: RequestorConnection): void {
    const existing = this._byServer.get(connection.id);
    if (existing?.connection === connection) return;
    existing?.store.dispose();
    const store = new DisposableStore();
    const listening: Listening = { connection, store, windows: new Map(), unknownIds: new LogThrottle(), early: new Map() };
    this._byServer.set(connection.id, listening);
    store.add(connection.onDidReceiveNotification((msg) => this._heard(listening, msg)));
    // A question the server asks on a task's tasks/result stream (2025-11-25: it names the task) is that call's, withdrawn when it ends.
    // (A test's stand-in connection may have no door.)
    const door = receiverOf(connection)?.questions;
    if (door) {
      const calls = (taskId: string) => this._tasks.byTaskId(connection.id, taskId)?.call;
      door.sentCallOf = calls;
      store.add(toDisposable(() => door.sentCallOf === calls && (door.sentCallOf = undefined)));
    }
    store.add(
      toDisposable(() => {
        for (const w of listening.windows.values()) clearTimeout(w.timer);
        listening.windows.clear();
        listening.early.clear();
      }),
    );
  }

  private _heard(listening: Listening, msg: unknown): void {
    const { connection } = listening;
    const m = msg as { method?: unknown; params?: { taskId?: unknown; status?: unknown } };
    const wire = this._tasks.wireFor(connection);
    const id = m.params?.taskId;
    if (m.method !== wire.statusNotificationMethod || typeof id !== 'string') return;
    // Only a task tracked live through this connection can use it: look it up before decoding (a zod parse).
    const tracked = this._tasks.byTaskId(connection.id, id);
    if (!tracked) {
      // Maybe the task of a call whose CreateTaskResult is still on its way: kept for {@link named}.
      if (this._tasks.awaitingName(connection)) {
        listening.early.delete(id);
        listening.early.set(id, msg);
        if (listening.early.size > EARLY_PUSHES_MAX) listening.early.delete(listening.early.keys().next().value!);
        return;
      }
      // Another server's task id, or one never issued: nothing is changed, and the log says so (bounded).
      this._warnUnknown(listening, id);
      return;
    }
    if (!isTrackedThrough(tracked, connection)) return;
    const window = listening.windows.get(id);
    if (window && !(typeof m.params?.status === 'string' && isTerminal(m.params.status as Task['status']))) {
      window.latest = msg;
      return;
    }
    this._take(listening, id, msg);
  }

  /**
   * `sent` was named by its server: a push about it that came first is taken in now. Once no call
   * through that connection waits for its name, what is left was about no task of ours: logged.
   */
  named(sent: SentTask): void {
    const connection = sent.live?.connection;
    const listening = connection && this._byServer.get(connection.id);
    if (!listening || listening.early.size === 0) return;
    const id = sent.record.task?.taskId;
    const msg = id === undefined ? undefined : listening.early.get(id);
    if (id !== undefined && msg !== undefined) {
      listening.early.delete(id);
      this._heard(listening, msg);
    }
    if (listening.early.size > 0 && !this._tasks.awaitingName(listening.connection)) {
      const left = [...listening.early.keys()];
      listening.early.clear();
      for (const other of left) this._warnUnknown(listening, other);
    }
  }

  private _warnUnknown(listening: Listening, id: string): void {
    const { connection } = listening;
    const method = this._tasks.wireFor(connection).statusNotificationMethod;
    if (listening.unknownIds.take((summary) => connection.log.warn(summary))) {
      connection.log.warn(`ignored ${method} for task ${quoteText(id.length > 80 ? `${id.slice(0, 80)}…` : id)}: no task sent to "${connection.name}" has that id`);
    }
  }

  /** Takes in `msg` about task `id` and opens the window in which later ones wait. */
  private _take(listening: Listening, id: string, msg: unknown): void {
    const { connection } = listening;
    const open = listening.windows.get(id);
    if (open) clearTimeout(open.timer);
    const timer = setTimeout(() => {
      const latest = listening.windows.get(id)?.latest;
      listening.windows.delete(id);
      if (latest !== undefined && isTrackedThrough(this._tasks.byTaskId(connection.id, id), connection)) this._take(listening, id, latest);
    }, PUSH_COALESCE_MS);
    timer.unref?.();
    listening.windows.set(id, { timer });
    const task = this._tasks.wireFor(connection).statusNotification(msg as Parameters<TaskWire['statusNotification']>[0]);
    const sent = task && this._tasks.byTaskId(connection.id, task.taskId);
    if (sent && isTrackedThrough(sent, connection)) {
      sent.live.take(task);
      sent.live.afterUpdate(/* extra */ true);
    }
  }
}

/** Whether `sent` is tracked live through `connection`, which still reaches where it was sent (sentOrigin.ts), and not yet at its end. */
function isTrackedThrough(sent: SentTask | undefined, connection: RequestorConnection): sent is SentTask & { live: TaskDrive } {
  return sent?.live?.connection === connection && !!sent.record.task && !isTerminal(sent.record.task.status) && sameOrigin(sent.record.sentTo, connection.origin);
}
