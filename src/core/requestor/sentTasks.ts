/**
 * The sent tasks the tracker keeps, one {@link SentTask} each under its key (fixed when it is made)
 * and, once its server named it, found by that server's task id too: adding and forgetting them,
 * moving them to another server id (the key stays), the events that tell of it, and storage. Each task reaches it only as its
 * {@link SentTaskHost}; the tracker-wide steps (sending, the send queue, identity and the server's
 * list, persistence) work on it as a whole.
 */
import { ErrorCode, ProtocolError } from '../base/errors.js';
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import type { RequestorConnection } from '../connection/connection.js';
import type { SentTaskRemoval, SentTaskRemovalReason } from './removal.js';
import type { SentRecord } from './sentRecord.js';
import { SentTask, type SentTaskHost } from './sentTask.js';
import { TaskStatusListeners } from './taskUpdates.js';
import { ThrottledSaver } from './trackerStore.js';
import type { SentTaskChange, TrackerOptions } from './trackerTypes.js';
import type { TaskWire } from './wire/taskWire.js';
import { taskWires } from './wire/wires.js';

/** What the tracker does when tasks are forgotten or change (the send queue's part). */
export interface SentTasksHooks {
  /** `task` is forgotten: it no longer waits anywhere. */
  forgotten(task: SentTask): void;
  /** A task changed or was forgotten: a slot of its server may have freed. */
  slotMayHaveFreed(): void;
}

export class SentTasks extends Disposable implements SentTaskHost {
  private readonly _tasks = new Map<string, SentTask>();
  /** `<serverId>/<taskId>` → the tasks the server named so (the same id at two origins is two tasks: sentOrigin.ts). */
  private readonly _byTaskId = new Map<string, SentTask[]>();
  private readonly _onDidChange = this._register(new Emitter<SentTaskChange>());
  readonly onDidChange: Event<SentTaskChange> = this._onDidChange.event;
  private readonly _onDidPoll = this._register(new Emitter<string>());
  readonly onDidPoll: Event<string> = this._onDidPoll.event;
  private readonly _onDidRemove = this._register(new Emitter<SentTaskRemoval>());
  readonly onDidRemove: Event<SentTaskRemoval> = this._onDidRemove.event;
  private readonly _statusListeners = this._register(new TaskStatusListeners(this));
  /** Made when the stored tasks are read ({@link keepStored}): before that, nothing is written over them. */
  private _saver?: ThrottledSaver;
  private readonly _now: () => number;
  private _calls = 0;

  constructor(
    readonly options: TrackerOptions,
    private readonly _hooks: SentTasksHooks,
  ) {
    super();
    this._now = options.now ?? Date.now;
  }

  /**
   * The stored tasks are being read (persistence.ts `loadRecords`): from now on what is kept here is
   * written there. Not before: a tracker that never read them (a window closed first) has nothing to
   * write, and a first write is the whole store, which would replace them with none.
   */
  keepStored(): void {
    const storage = this.options.storage;
    if (!storage || this._saver || this._isDisposed) return;
    this._saver = new ThrottledSaver(storage, () => this._storedRecords(), undefined, this.options.saveIntervalMs, this._now);
  }

  // ---- SentTaskHost ------------------------------------------------------------------------

  now(): number {
    return this._now();
  }

  /** `wireFor`, or what the server declares (select.ts). */
  wireFor(connection: RequestorConnection): TaskWire {
    return this.options.wireFor?.(connection) ?? taskWires().wireForCapabilities(connection.serverCapabilities);
  }

  changed(task: SentTask, kind: SentTaskChange['kind']): void {
    this._onDidChange.fire({ key: task.key, kind });
    this._saver?.schedule(task.key);
    this._hooks.slotMayHaveFreed();
  }

  named(task: SentTask): void {
    this._index(task);
    this._onDidChange.fire({ key: task.key, kind: 'updated', named: true });
    // A status push about it may have come before its name did (taskUpdates.ts).
    this._statusListeners.named(task);
    this._saver?.schedule(task.key);
    this._hooks.slotMayHaveFreed();
  }

  polled(task: SentTask): void {
    this._onDidPoll.fire(task.key);
  }

  connectionLost(connection: RequestorConnection): void {
    for (const task of [...this._tasks.values()]) {
      if (task.live?.connection === connection) task.pause(`"${task.record.serverName}" disconnected`);
    }
  }

  awaitingName(connection: RequestorConnection): boolean {
    for (const task of this._tasks.values()) if (task.record.phase === 'sending' && task.record.mode === 'task' && task.live?.connection === connection) return true;
    return false;
  }

  listenOn(connection: RequestorConnection): void {
    this._statusListeners.watch(connection);
  }

  // ---- the set of tasks --------------------------------------------------------------------

  get size(): number {
    return this._tasks.size;
  }

  get(key: string): SentTask | undefined {
    return this._tasks.get(key);
  }

  /**
   * The task its server `serverId` names `taskId`: of two (the same id at two origins), the one
   * tracked live, else the latest named.
   */
  byTaskId(serverId: string, taskId: string): SentTask | undefined {
    const named = this._byTaskId.get(`${serverId}/${taskId}`);
    if (!named) return undefined;
    if (named.length === 1) return named[0];
    return named.find((t) => t.live) ?? named[named.length - 1];
  }

  /** Every task its server `serverId` names `taskId` (most often one). */
  allByTaskId(serverId: string, taskId: string): readonly SentTask[] {
    return this._byTaskId.get(`${serverId}/${taskId}`) ?? [];
  }

  /** The task under `key`; throws InvalidParams when there is none. */
  require(key: string): SentTask {
    const task = this._tasks.get(key);
    if (!task) throw new ProtocolError(ErrorCode.InvalidParams, `No sent task with key ${key}`);
    return task;
  }

  /** Every task, in the order they were kept. */
  all(): IterableIterator<SentTask> {
    return this._tasks.values();
  }

  /** A number for a new call's local key, unique in this tracker. */
  nextCallNumber(): number {
    return ++this._calls;
  }

  /** A task object for `record` (not yet kept). */
  create(record: SentRecord): SentTask {
    return new SentTask(record, this);
  }

  /** Keeps a task read from storage, silently (loading is not a change). */
  restore(record: SentRecord): void {
    const task = this.create(record);
    this._keep(task);
    this._index(task);
  }

  /** A key for a new task from `base`, not yet taken (`base~2`, `base~3`, … when it is). */
  freeKey(base: string): string {
    let key = base;
    for (let n = 2; this._tasks.has(key); n++) key = `${base}~${n}`;
    return key;
  }

  /** What was loaded differs from what is stored (scrubbed on load): written again, whole. */
  storedFormChanged(): void {
    this._saver?.schedule();
  }

  /** Keeps `task` under its key and tells of it as added. */
  add(task: SentTask): void {
    this._keep(task);
    this._index(task);
    task.changed('added');
  }

  /**
   * Whether {@link all} is in `sentAt` order (no task kept before one sent earlier): the count
   * bound then takes the first tasks it may drop instead of reading every task on each new call
   * (persistence.ts `oldest`; bench: rev2026 host CPU per call). Once broken, it stays so until empty (a task's key never changes, so only a task restored or
   * sent out of order breaks it).
   */
  get inSentOrder(): boolean {
    return this._inSentOrder;
  }

  private _inSentOrder = true;
  private _lastSentAt = -Infinity;

  private _keep(task: SentTask): void {
    if (this._tasks.size === 0) {
      this._inSentOrder = true;
      this._lastSentAt = -Infinity;
    }
    const at = task.record.sentAt;
    const had = this._tasks.get(task.key);
    // A key kept again stays where it was: in order only if its sent time is the same.
    if (had ? had.record.sentAt !== at : at < this._lastSentAt) this._inSentOrder = false;
    else this._lastSentAt = Math.max(this._lastSentAt, at);
    this._tasks.set(task.key, task);
  }

  /** Moves `task` to server id `serverId` (its definition's id changed, or it is an orphan now): its key stays. */
  moveServer(task: SentTask, serverId: string): void {
    if (task.record.serverId === serverId) return;
    this._unindex(task);
    task.record.serverId = serverId;
    this._index(task);
    task.changed();
  }

  private _index(task: SentTask): void {
    const taskId = task.record.task?.taskId;
    if (taskId === undefined) return;
    const id = `${task.record.serverId}/${taskId}`;
    const named = this._byTaskId.get(id);
    if (!named) this._byTaskId.set(id, [task]);
    else if (!named.includes(task)) this._byTaskId.set(id, [...named, task]);
  }

  private _unindex(task: SentTask): void {
    const taskId = task.record.task?.taskId;
    if (taskId === undefined) return;
    const id = `${task.record.serverId}/${taskId}`;
    const named = this._byTaskId.get(id);
    if (!named) return;
    const rest = named.filter((t) => t !== task);
    if (rest.length) this._byTaskId.set(id, rest);
    else this._byTaskId.delete(id);
  }

  /** Forgets the tasks; one {@link onDidRemove} names them all. */
  drop(tasks: readonly SentTask[], reason: SentTaskRemovalReason): void {
    if (!tasks.length) return;
    for (const task of tasks) {
      this._hooks.forgotten(task);
      task.dispose();
      this._tasks.delete(task.key);
      this._unindex(task);
      this._onDidChange.fire({ key: task.key, kind: 'removed' });
    }
    this._saver?.schedule();
    this._onDidRemove.fire({ keys: tasks.map((t) => t.key), reason });
    this._hooks.slotMayHaveFreed();
  }

  // ---- storage -----------------------------------------------------------------------------

  /** Writes to storage so far (diagnostics; at most one per `saveIntervalMs`). */
  get storageWrites(): number {
    return this._saver?.writes ?? 0;
  }

  /** Writes pending changes now; resolves when stored. */
  flush(): Promise<void> {
    return this._saver?.flush() ?? Promise.resolve();
  }

  /** What is stored: every task but the queued ones (they never reached a server). */
  private *_storedRecords(): Iterable<SentRecord> {
    for (const t of this._tasks.values()) if (t.record.phase !== 'queued') yield t.record;
  }

  override dispose(): void {
    if (this._isDisposed) return;
    void this._saver?.dispose();
    // The window goes: a result stream that can be resumed is left open on the server (taskDrive.ts `stop`).
    for (const task of this._tasks.values()) task.detach(true);
    this._byTaskId.clear();
    super.dispose();
  }
}
