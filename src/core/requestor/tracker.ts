/**
 * The requestor side: tool calls this host sends to servers, as tasks where the server and
 * the tool allow it (R-CAP-3/4), tracked to the end: `tasks/get` polling at the latest
 * `pollInterval` (R-GET-1) and never faster, also around `tasks/result`; status notifications as
 * extra updates (R-NOTIFY-2), `tasks/result` on `input_required` (R-RESULT-4) and on `completed`
 * *and* `failed` (R-RESULT-1), retried with backoff after network errors; progress for the task's
 * whole life (R-PROGRESS-1), cancel through `tasks/cancel` (also when pressed before the task id
 * is known), and bounded, throttled persistence across reloads keyed by the server definition's
 * identity (`definitionKey`), not its name.
 */
import { type Tool } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError } from '../base/errors.js';
import { errorMessage } from '../base/errors.js';
import { Emitter, type Event } from '../base/event.js';
import type { IDisposable } from '../base/lifecycle.js';
import type { ServerDefinition } from '../config/config.js';
import type { McpConnection } from '../connection/connection.js';
import type { ServerStates } from '../connection/registry.js';
import { cancelSentTask, sendCancel } from './cancellation.js';
import { claim, connectionOf, followListed, isUnfollowedListed, mergeServerList, setConfiguredServers } from './identity.js';
import { resumePolling } from './polling.js';
import { fetchResult } from './results.js';
import { loadRecords, pruneRecords } from './persistence.js';
import { cancelQueued, pump, queueOrCall, SendQueue, type TaskPriority } from './sendQueue.js';
import { FINISHED_PHASES, type LiveState, type SentRecord, stored, toSnapshot, type TrackerInternals } from './sentRecord.js';
import { ThrottledSaver } from './trackerStore.js';
import { RequestScope } from './requestScope.js';
import { type SentTaskChange, type SentTaskPhase, type SentTaskSnapshot, type TrackerOptions } from './trackerTypes.js';
import type { SentTaskRemoval, SentTaskRemovalReason } from './removal.js';
import { forgetTaskProgress, interruptionReason } from './trackerUtil.js';
import type { TaskWire } from './wire/taskWire.js';
import { wireByGeneration, wireForCapabilities } from './wire/select.js';
import { TaskStatusListeners } from './taskUpdates.js';

export type { TrackerStorage } from './trackerStore.js';
export { TASK_PRIORITIES, type TaskPriority } from './sendQueue.js';
export type { SentTaskRemoval, SentTaskRemovalReason } from './removal.js';
export { interruptionReason } from './trackerUtil.js';
export { taskModeFor, type SentTaskChange, type SentTaskPhase, type SentTaskSnapshot, type TrackerOptions } from './trackerTypes.js';

/** Tracks every tool call sent to any server. Dispose to stop all polling and abort pending requests. */
export class TaskTracker implements IDisposable, TrackerInternals {
  /** @internal */
  readonly _records = new Map<string, SentRecord>();
  /** @internal */
  readonly _onDidChange = new Emitter<SentTaskChange>();
  /** Fires on every change of a sent task (coalesce in the UI). */
  readonly onDidChange: Event<SentTaskChange> = this._onDidChange.event;
  /** @internal */
  readonly _onDidPoll = new Emitter<string>();
  /** Fires with a task's key after each `tasks/get` answer, changed or not (for the headless client and tests; the UI uses onDidChange). */
  readonly onDidPoll: Event<string> = this._onDidPoll.event;
  private readonly _onDidRemove = new Emitter<SentTaskRemoval>();
  /** Fires once per removal (dismissed, cleared, pruned by count or age, replaced), naming the tasks and why. */
  readonly onDidRemove: Event<SentTaskRemoval> = this._onDidRemove.event;
  private _pruneTimer?: NodeJS.Timeout;
  /** @internal */
  readonly _now: () => number;
  /** @internal */
  _plainCounter = 0;
  private _disposed = false;
  private readonly _statusListeners = new TaskStatusListeners(this);
  private readonly _saver?: ThrottledSaver;
  private readonly _queue = new SendQueue();
  private _pumpScheduled = false;

  constructor(/** @internal */ readonly _options: TrackerOptions) {
    this._now = _options.now ?? Date.now;
    if (_options.storage) {
      this._saver = new ThrottledSaver(_options.storage, () => this._storedRecords(), stored, _options.saveIntervalMs, this._now);
    }
    this._load();
    // Finished tasks age out while the window stays open too (mcpTasks.requestor.maxFinishedAgeHours).
    this._pruneTimer = setInterval(() => pruneRecords(this), _options.pruneIntervalMs ?? 10 * 60_000);
    this._pruneTimer.unref?.();
  }

  /** Copies of all sent tasks, newest first. */
  snapshot(): SentTaskSnapshot[] {
    return [...this._records.values()].sort((a, b) => b.sentAt - a.sentAt).map(toSnapshot);
  }

  /** Copies of the sent tasks `filter` accepts, tested before copying (cheap with thousands of stored tasks); in no particular order. */
  snapshotsWhere(filter: (s: Readonly<Pick<SentTaskSnapshot, 'serverId' | 'phase' | 'task' | 'mode'>>) => boolean): SentTaskSnapshot[] {
    const out: SentTaskSnapshot[] = [];
    for (const r of this._records.values()) if (filter(r)) out.push(toSnapshot(r));
    return out;
  }

  get(key: string): SentTaskSnapshot | undefined {
    const r = this._records.get(key);
    return r ? toSnapshot(r) : undefined;
  }

  /** Number of sent tasks not yet finished (queued, sending, tracking). */
  get activeCount(): number {
    let n = 0;
    for (const r of this._records.values()) if (r.phase === 'queued' || r.phase === 'sending' || r.phase === 'tracking') n++;
    return n;
  }

  /** Writes to storage so far (diagnostics; at most one per `saveIntervalMs`). */
  get storageWrites(): number {
    return this._saver?.writes ?? 0;
  }

  /**
   * Calls a tool on a running server: as a task when allowed (R-CAP-3/4), else plainly.
   * Resolves with the local key once the call is under way (a task) or finished (plain); with
   * the server at its concurrency limit (`maxConcurrentPerServer`), at once with the key of a
   * `queued` record that starts in `priority` order (sendQueue.ts).
   */
  callTool(connection: McpConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, options: { mode?: 'task' | 'plain'; signal?: AbortSignal; priority?: TaskPriority; startedBy?: 'chat' } = {}): Promise<string> {
    try {
      return queueOrCall(this, this._queue, connection, tool, args, options);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The limit may have changed: start what may start now. */
  startQueued(): void {
    for (const serverId of this._queue.servers()) pump(this, this._queue, serverId);
  }

  /**
   * Cancels a sent task (`tasks/cancel`) or aborts a plain call. Never throws for a task that
   * cannot be cancelled now; the snapshot's `reason` says why, or when the cancel will go out:
   * pressed before the CreateTaskResult arrived, it goes out as soon as the task id is known (and
   * this resolves then), and pressed once more meanwhile, the request is abandoned; while the
   * server is disconnected, it goes out once the server is back.
   */
  cancel(key: string): Promise<SentTaskSnapshot> {
    const rec = this._records.get(key);
    // Cancelling a listed task is opening it: it is followed, so the cancel goes out and its end is seen.
    if (rec && isUnfollowedListed(rec)) this.follow(key);
    if (rec?.phase === 'queued' && cancelQueued(this, this._queue, rec)) return Promise.resolve(toSnapshot(rec));
    return cancelSentTask(this, key);
  }

  /**
   * Fetches the payload of a terminal task that has none yet (a network error, or a result too
   * large to store); resolves with the task as it stands after one attempt.
   */
  async retrieve(key: string): Promise<SentTaskSnapshot> {
    const rec = this._require(key);
    if (this.follow(key)) {
      await rec.live?.resultCall;
      return toSnapshot(rec);
    }
    const status = rec.task?.status;
    if (rec.outcome || rec.mode !== 'task' || (status !== 'completed' && status !== 'failed')) return toSnapshot(rec);
    let live = rec.live;
    if (!live) {
      const connection = connectionOf(this, rec);
      if (!connection || connection.state.kind !== 'running') {
        rec.reason = `Its result is fetched once "${rec.serverName}" is connected.`;
        this._changed(rec);
        return toSnapshot(rec);
      }
      live = this._attach(rec, connection);
    }
    if (live.resultRetry) clearTimeout(live.resultRetry);
    live.resultRetry = undefined;
    live.resultFailures = 0;
    await fetchResult(this, rec);
    return toSnapshot(rec);
  }

  /**
   * The user opened a task found through `tasks/list` (its document, Retrieve Result, Cancel): it
   * is followed from now on — polled, its result fetched, its input requests answered — where
   * until then the list alone updated it. Returns false for any other task (nothing changes).
   */
  follow(key: string): boolean {
    const rec = this._records.get(key);
    return !!rec && followListed(this, rec, connectionOf(this, rec));
  }

  /** Forgets a task that is not running (finished, paused or orphaned), its result too. */
  remove(key: string): void {
    const rec = this._records.get(key);
    if (!rec) return;
    if (rec.phase === 'sending' || rec.phase === 'tracking' || rec.phase === 'queued') throw new Error(`Task ${key} is still running; cancel it first`);
    this._drop(rec, 'dismissed');
  }

  /** Removes every finished task. */
  clearFinished(): number {
    const finished = [...this._records.values()].filter((rec) => FINISHED_PHASES.has(rec.phase));
    this._dropAll(finished, 'cleared');
    return finished.length;
  }

  /**
   * The configured server definitions changed (and on start). Tasks follow their definition
   * (`definitionKey`: source file + name), whatever id it has now; tasks of a definition no longer
   * configured become `orphaned` (shown under their own "not configured" server, with Dismiss) and
   * come back if it is configured again; a task whose definition's content changed waits for the
   * restarted server. Data from before definition keys were kept is adopted by the definition that
   * now has its server id.
   */
  setConfiguredServers(definitions: readonly ServerDefinition[]): void {
    setConfiguredServers(this, definitions);
    this._schedulePump();
  }

  /**
   * The server (re)connected: resume tracking its paused tasks (sending a requested cancel
   * first), fetch missing payloads and merge its `tasks/list` (R-LIST) so tasks from elsewhere
   * show up. Only tasks of this very definition are touched.
   */
  async onServerRunning(connection: McpConnection): Promise<void> {
    const key = claim(this, connection);
    for (const rec of [...this._records.values()]) {
      if (rec.definitionKey !== key) continue;
      rec.serverName = connection.name;
      // A listed task nobody opened is refreshed by the list below, never polled (identity.ts).
      if (isUnfollowedListed(rec)) continue;
      const resumable = rec.phase === 'paused' || rec.phase === 'orphaned' || (rec.phase === 'tracking' && rec.live?.connection !== connection);
      if (resumable && rec.mode === 'task' && rec.task) {
        this._attach(rec, connection).resumedAfterPause = true;
        rec.phase = 'tracking';
        rec.reason = undefined;
        this._changed(rec);
        if (rec.cancelRequested) void sendCancel(this, rec).catch((e) => connection.log.warn(`tasks/cancel failed: ${errorMessage(e)}`));
        else resumePolling(this, rec);
      } else if (rec.phase === 'done' && rec.mode === 'task' && !rec.outcome && !rec.outcomeDropped && rec.task && (rec.task.status === 'completed' || rec.task.status === 'failed')) {
        this._attach(rec, connection);
        void fetchResult(this, rec);
      }
    }
    pump(this, this._queue, connection.id);
    await this.mergeServerList(connection).catch((e) => connection.log.warn(`tasks/list failed: ${errorMessage(e)}`));
  }

  /** The server disconnected: pause tracking its tasks until it is back. */
  onServerStopped(serverId: string, reason: string): void {
    for (const rec of [...this._records.values()]) {
      if (rec.serverId === serverId && (rec.phase === 'tracking' || rec.phase === 'sending') && !isUnfollowedListed(rec)) this._pause(rec, reason);
    }
  }

  /**
   * Follows the servers' states (a registry's): a server that runs again resumes its tasks
   * ({@link onServerRunning}); one that leaves `running` for anything but `starting` pauses them,
   * with why ({@link interruptionReason}). Dispose the result to stop following.
   */
  followServers(servers: ServerStates): IDisposable {
    return servers.onDidChangeState(({ connection, state }) => {
      if (state.kind === 'running') void this.onServerRunning(connection).catch((e) => connection.log.warn(errorMessage(e)));
      else if (state.kind !== 'starting') this.onServerStopped(connection.id, interruptionReason(connection.name, state));
    });
  }

  /** Reads every page of the server's `tasks/list` and adds the tasks this window does not know. */
  mergeServerList(connection: McpConnection): Promise<number> {
    return mergeServerList(this, connection);
  }

  /**
   * Drops finished tasks older than `maxFinishedAgeMs`, then the oldest finished (then orphaned)
   * tasks beyond `maxStoredTasks`; running ones are never dropped. Runs on load and every
   * `pruneIntervalMs` (a new task checks the count bound only); {@link onDidRemove} names what went.
   */
  prune(): number {
    return pruneRecords(this);
  }

  dispose(): void {
    if (this._disposed) return;
    void this._saver?.dispose();
    this._disposed = true;
    if (this._pruneTimer) clearInterval(this._pruneTimer);
    for (const rec of this._records.values()) this._detach(rec);
    this._statusListeners.dispose();
    this._onDidChange.dispose();
    this._onDidPoll.dispose();
    this._onDidRemove.dispose();
  }

  /** Writes pending changes now (e.g. before deactivation); resolves when stored. */
  flush(): Promise<void> {
    return this._saver?.flush() ?? Promise.resolve();
  }

  // ---- tracking ---------------------------------------------------------------------------

  /** @internal */
  _attach(rec: SentRecord, connection: McpConnection): LiveState {
    this._detach(rec);
    // Every field from the start: one object shape for all live states (each field added later
    // made a new one, and code reading them was compiled again for it; bench/ row 2).
    rec.live = {
      requests: new RequestScope(),
      connection,
      resumedAfterPause: false,
      timer: undefined,
      resultCall: undefined,
      resultRetry: undefined,
      resultFailures: 0,
      failures: 0,
      networkFailures: 0,
      polling: 0,
      createdAt: undefined,
      cancelling: undefined,
      created: undefined,
      inputRequests: undefined,
      presentedInputs: undefined,
      openInputs: undefined,
      answeringInputs: 0,
      abandonedWhileAnswering: false,
    };
    this._statusListeners.watch(connection);
    return rec.live;
  }

  /** @internal */
  _detach(rec: SentRecord): void {
    const live = rec.live;
    if (!live) return;
    rec.live = undefined;
    if (live.timer) clearTimeout(live.timer);
    if (live.resultRetry) clearTimeout(live.resultRetry);
    live.requests.stop();
    // R-PROGRESS-1 ends with tracking: drop the progress handler the SDK keeps for the task's
    // creating request (it only does so itself for tasks in its own store).
    if (rec.task) {
      forgetTaskProgress(live.connection, rec.task.taskId);
      live.connection.unwatchTask(rec.task.taskId);
    }
  }

  /** Stops tracking until the server is back (a plain call in flight has lost its answer). */
  /** @internal */
  _pause(rec: SentRecord, reason: string): void {
    this._detach(rec);
    if (rec.mode === 'plain' && rec.phase === 'sending') {
      rec.outcome ??= { kind: 'error', code: ErrorCode.ConnectionClosed, message: reason };
      this._finish(rec, 'error', reason);
      return;
    }
    if (rec.phase !== 'tracking' && rec.phase !== 'sending') return;
    rec.phase = 'paused';
    rec.reason = reason;
    this._changed(rec);
  }

  /** The connection a request went through is gone: pause what was tracked through it. */
  /** @internal */
  _connectionLost(connection: McpConnection): void {
    for (const rec of [...this._records.values()]) {
      if (rec.live?.connection === connection) this._pause(rec, `"${rec.serverName}" disconnected`);
    }
  }

  /** @internal The task wire of a record (the one it was sent on), else of a connection: `wireFor`, or what the server declares (select.ts). */
  _wire(connection: McpConnection, rec?: SentRecord): TaskWire {
    return wireByGeneration(rec?.wire) ?? this._options.wireFor?.(connection) ?? wireForCapabilities(connection.serverCapabilities);
  }

  /** @internal */
  _finish(rec: SentRecord, phase: SentTaskPhase, reason?: string): void {
    if (!FINISHED_PHASES.has(rec.phase) && FINISHED_PHASES.has(phase)) rec.finishedAt = this._now();
    rec.phase = phase;
    if (reason !== undefined) rec.reason = reason;
    if (rec.live) this._detach(rec);
    this._changed(rec);
  }

  /** @internal */
  _drop(rec: SentRecord, reason: SentTaskRemovalReason): void {
    this._dropAll([rec], reason);
  }

  /** @internal Forgets the records; one {@link onDidRemove} names them all. */
  _dropAll(recs: readonly SentRecord[], reason: SentTaskRemovalReason): void {
    if (!recs.length) return;
    for (const rec of recs) {
      this._queue.remove(rec);
      this._detach(rec);
      this._records.delete(rec.key);
      this._onDidChange.fire({ key: rec.key, kind: 'removed' });
    }
    this._saver?.schedule();
    this._onDidRemove.fire({ keys: recs.map((r) => r.key), reason });
    this._schedulePump();
  }

  /** @internal */
  _changed(rec: SentRecord, kind: SentTaskChange['kind'] = 'updated', from?: string): void {
    this._onDidChange.fire(from === undefined ? { key: rec.key, kind } : { key: rec.key, kind, from });
    this._saver?.schedule(rec.key);
    this._schedulePump();
  }

  /** A slot may have freed: start waiting calls once the current change is through. */
  private _schedulePump(): void {
    if (this._pumpScheduled || this._queue.size === 0 || this._disposed) return;
    this._pumpScheduled = true;
    queueMicrotask(() => {
      this._pumpScheduled = false;
      if (!this._disposed) this.startQueued();
    });
  }

  /** @internal */
  _require(key: string): SentRecord {
    const rec = this._records.get(key);
    if (!rec) throw new ProtocolError(ErrorCode.InvalidParams, `No sent task with key ${key}`);
    return rec;
  }

  // ---- persistence ------------------------------------------------------------------------

  private _load(): void {
    loadRecords(this);
  }

  /** What is stored: every task but the queued ones (they never reached a server). */
  private *_storedRecords(): Iterable<SentRecord> {
    for (const r of this._records.values()) if (r.phase !== 'queued') yield r;
  }

}
