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
import { errorMessage } from '../base/errors.js';
import { Emitter, type Event } from '../base/event.js';
import { Disposable, toDisposable, type IDisposable } from '../base/lifecycle.js';
import type { ServerDefinition } from '../config/config.js';
import type { RequestorConnection } from '../connection/connection.js';
import type { ServerStates } from '../connection/registry.js';
import { claim, connectionOf, followListed, isUnfollowedListed, mergeServerList, setConfiguredServers } from './identity.js';
import { loadRecords, markWindowEnd, pruneRecords } from './persistence.js';
import { cancelQueued, pump, queueOrCall, SendQueue, type TaskPriority } from './sendQueue.js';
import { FINISHED_PHASES, toSnapshot } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import type { ServerLog } from '../base/log.js';
import { SentTasks } from './sentTasks.js';
import { type SentTaskChange, type SentTaskSnapshot, type TrackerOptions } from './trackerTypes.js';
import type { SentTaskRemoval } from './removal.js';
import { interruptionReason } from './trackerUtil.js';

export type { TrackerStorage } from './trackerStore.js';
export { TASK_PRIORITIES, type TaskPriority } from './sendQueue.js';
export type { SentTaskRemoval, SentTaskRemovalReason } from './removal.js';
export { interruptionReason } from './trackerUtil.js';
export { taskModeFor, type SentTaskChange, type SentTaskPhase, type SentTaskSnapshot, type TrackerOptions } from './trackerTypes.js';

/**
 * Tracks every tool call sent to any server: a registry of {@link SentTask}s (sentTasks.ts), each
 * owning its polling, result, cancel and input, with the send queue in front. Dispose to stop all
 * polling and abort pending requests.
 */
export class TaskTracker extends Disposable {
  private readonly _queue = new SendQueue();
  /** The tasks, once read from storage ({@link _tasks} reads them at the first need). */
  private readonly _sent: SentTasks;
  private _loaded = false;
  private readonly _onDidLoad = this._register(new Emitter<void>());
  /**
   * Fires once, when the tasks an earlier window kept have been read: at the first need of them (any
   * read, call or change through this tracker) or {@link restore}, whichever comes first. Loading is
   * not a change: no {@link onDidChange} tells of the tasks read. What keeps a view of "the tasks this
   * window began with" (the ends already told, the calls that ended before it) takes it through {@link whenLoaded}.
   */
  readonly onDidLoad: Event<void> = this._onDidLoad.event;
  /** Fires on every change of a sent task (coalesce in the UI). */
  readonly onDidChange: Event<SentTaskChange>;
  /** Fires with a task's key after each `tasks/get` answer, changed or not (for the headless client and tests; the UI uses onDidChange). */
  readonly onDidPoll: Event<string>;
  /** Fires once per removal (dismissed, cleared, pruned by count or age, replaced), naming the tasks and why. */
  readonly onDidRemove: Event<SentTaskRemoval>;
  private _pumpScheduled = false;

  /**
   * The stored tasks are not read here but at their first need: a window's tracker is made at
   * activation, and checking 100 kept tasks there cost that activation ≈ 35–50 ms of CPU (bench:
   * "startup activation, tasks kept from an earlier window"). The extension reads them right after
   * activation ({@link restore}); anything that needs them sooner reads them then, the same.
   */
  constructor(options: TrackerOptions) {
    super();
    this._sent = this._register(new SentTasks(options, {
      forgotten: (task) => this._queue.remove(task),
      slotMayHaveFreed: () => this._schedulePump(),
    }));
    this.onDidChange = this._sent.onDidChange;
    this.onDidPoll = this._sent.onDidPoll;
    this.onDidRemove = this._sent.onDidRemove;
    // Finished tasks age out while the window stays open too (mcpTasks.requestor.maxFinishedAgeHours); none read yet, none to age.
    const pruneTimer = setInterval(() => this._loaded && pruneRecords(this._sent), options.pruneIntervalMs ?? 10 * 60_000);
    pruneTimer.unref?.();
    this._register(toDisposable(() => clearInterval(pruneTimer)));
    this._register(toDisposable(() => this._queue.clear()));
  }

  /** Whether the stored tasks have been read ({@link onDidLoad}). */
  get loaded(): boolean {
    return this._loaded;
  }

  /**
   * Runs `listener` with the tasks read: now if they are, else once when they are ({@link onDidLoad}). What keeps
   * "the tasks this window began with" takes them here. Dispose to give up before the read.
   */
  whenLoaded(listener: () => void): IDisposable {
    if (this._loaded) {
      listener();
      return toDisposable(() => undefined);
    }
    return this.onDidLoad(listener);
  }

  /** Reads the stored tasks now, if nothing has needed them yet. */
  restore(): void {
    void this._tasks;
  }

  /** The tasks, read from storage first if this is their first need. */
  private get _tasks(): SentTasks {
    if (this._loaded) return this._sent;
    // Before reading: what loading does goes to the store, never back here.
    this._loaded = true;
    if (!this._isDisposed) {
      loadRecords(this._sent);
      this._onDidLoad.fire();
    }
    return this._sent;
  }

  /** Copies of all sent tasks, newest first. */
  snapshot(): SentTaskSnapshot[] {
    return [...this._tasks.all()].sort((a, b) => b.record.sentAt - a.record.sentAt).map((t) => toSnapshot(t.record));
  }

  /** Copies of the sent tasks `filter` accepts, tested before copying (cheap with thousands of stored tasks); in no particular order. */
  snapshotsWhere(filter: (s: Readonly<Pick<SentTaskSnapshot, 'serverId' | 'phase' | 'task' | 'mode'>>) => boolean): SentTaskSnapshot[] {
    const out: SentTaskSnapshot[] = [];
    for (const { record } of this._tasks.all()) if (filter(record)) out.push(toSnapshot(record));
    return out;
  }

  get(key: string): SentTaskSnapshot | undefined {
    const t = this._tasks.get(key);
    return t ? toSnapshot(t.record) : undefined;
  }

  /** The key of the task server `serverId` named `taskId` (a key is not made of that id: sentTask.ts). */
  keyOfTask(serverId: string, taskId: string): string | undefined {
    return this._tasks.byTaskId(serverId, taskId)?.key;
  }

  /** Number of sent tasks not yet finished (queued, sending, tracking). */
  get activeCount(): number {
    let n = 0;
    for (const { record: r } of this._tasks.all()) if (r.phase === 'queued' || r.phase === 'sending' || r.phase === 'tracking') n++;
    return n;
  }

  /** Writes to storage so far (diagnostics; at most one per `saveIntervalMs`). */
  get storageWrites(): number {
    return this._sent.storageWrites;
  }

  /**
   * Calls a tool on a running server: as a task when allowed (R-CAP-3/4), else plainly.
   * Resolves with the local key once the call is under way (a task) or finished (plain); with
   * the server at its concurrency limit (`maxConcurrentPerServer`), at once with the key of a
   * `queued` record that starts in `priority` order (sendQueue.ts).
   */
  callTool(connection: RequestorConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, options: { mode?: 'task' | 'plain'; signal?: AbortSignal; priority?: TaskPriority; startedBy?: 'chat' } = {}): Promise<string> {
    try {
      return queueOrCall(this._tasks, this._queue, connection, tool, args, options);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * The arguments a call made in this window was sent with (for "Run Again…"), or undefined for
   * a task from storage, the server's list or another window: only the redacted summary is kept.
   */
  callArguments(key: string): Readonly<Record<string, unknown>> | undefined {
    return this._tasks.get(key)?.callArguments;
  }

  /** The limit may have changed: start what may start now. */
  startQueued(): void {
    for (const serverId of this._queue.servers()) pump(this._tasks, this._queue, serverId);
  }

  /**
   * Cancels a sent task (`tasks/cancel`) or aborts a plain call. Never throws for a task that
   * cannot be cancelled now; the snapshot's `reason` says why, or when the cancel will go out:
   * pressed before the CreateTaskResult arrived, it goes out as soon as the task id is known (and
   * this resolves then), and pressed once more meanwhile, the request is abandoned; while the
   * server is disconnected, it goes out once the server is back.
   */
  cancel(key: string): Promise<SentTaskSnapshot> {
    let sent: SentTask;
    try {
      sent = this._tasks.require(key);
    } catch (e) {
      return Promise.reject(e);
    }
    // Cancelling a listed task is opening it: it is followed, so the cancel goes out and its end is seen.
    if (isUnfollowedListed(sent.record)) this.follow(key);
    if (sent.record.phase === 'queued' && cancelQueued(this._queue, sent)) return Promise.resolve(toSnapshot(sent.record));
    return sent.cancel().then(() => toSnapshot(sent.record));
  }

  /**
   * Fetches the payload of a terminal task that has none yet (a network error, or a result too
   * large to store); resolves with the task as it stands after one attempt.
   */
  async retrieve(key: string): Promise<SentTaskSnapshot> {
    const sent = this._tasks.require(key);
    const rec = sent.record;
    if (this.follow(key)) {
      await sent.live?.resultCall;
      return toSnapshot(rec);
    }
    const status = rec.task?.status;
    if (rec.outcome || rec.mode !== 'task' || (status !== 'completed' && status !== 'failed')) return toSnapshot(rec);
    let live = sent.live;
    if (!live) {
      const connection = connectionOf(sent);
      if (!connection || connection.state.kind !== 'running') {
        rec.reason = `Its result is fetched once "${rec.serverName}" is connected.`;
        sent.changed();
        return toSnapshot(rec);
      }
      if (!sent.mayReach(connection)) return toSnapshot(rec);
      live = sent.attach(connection);
    }
    sent.clock.stopResultRetry();
    live.resultFailures = 0;
    await live.fetchResult();
    return toSnapshot(rec);
  }

  /**
   * The user opened a task found through `tasks/list` (its document, Retrieve Result, Cancel): it
   * is followed from now on — polled, its result fetched, its input requests answered — where
   * until then the list alone updated it. Returns false for any other task (nothing changes).
   */
  follow(key: string): boolean {
    const sent = this._tasks.get(key);
    return !!sent && followListed(sent, connectionOf(sent));
  }

  /** The log of a configured server's connection (where what is said about its calls goes). */
  serverLog(serverId: string): ServerLog | undefined {
    return this._sent.options.connectionFor(serverId)?.log;
  }

  /**
   * Forgets a task that is not running (finished, paused or orphaned), or one the user cancelled
   * (whether or not its server confirmed the cancel), its result too.
   */
  remove(key: string): void {
    const sent = this._tasks.get(key);
    if (!sent) return;
    const phase = sent.record.phase;
    const running = phase === 'sending' || phase === 'tracking' || phase === 'queued';
    if (running && !(sent.record.cancelledByUser && sent.record.mode === 'task')) throw new Error(`Task ${key} is still running; cancel it first`);
    this._tasks.drop([sent], 'dismissed');
  }

  /** Removes every finished task. */
  clearFinished(): number {
    const finished = [...this._tasks.all()].filter((t) => FINISHED_PHASES.has(t.record.phase));
    this._tasks.drop(finished, 'cleared');
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
    setConfiguredServers(this._tasks, definitions);
    this._schedulePump();
  }

  /**
   * The server (re)connected: resume tracking its paused tasks (sending a requested cancel
   * first), fetch missing payloads and merge its `tasks/list` (R-LIST) so tasks from elsewhere
   * show up. Only tasks of this very definition are touched.
   */
  async onServerRunning(connection: RequestorConnection): Promise<void> {
    const key = claim(this._tasks, connection);
    for (const sent of [...this._tasks.all()]) {
      const rec = sent.record;
      if (rec.definitionKey !== key) continue;
      rec.serverName = connection.name;
      // A listed task nobody opened is refreshed by the list below, never polled (identity.ts).
      if (isUnfollowedListed(rec)) continue;
      const resumable = rec.phase === 'paused' || rec.phase === 'orphaned' || (rec.phase === 'tracking' && sent.live?.connection !== connection);
      const fetchable = rec.phase === 'done' && rec.mode === 'task' && !rec.outcome && !rec.outcomeDropped && rec.task && (rec.task.status === 'completed' || rec.task.status === 'failed');
      // Only where it was sent: a definition that reaches another server now holds it, with why (sentOrigin.ts).
      if (((resumable && rec.mode === 'task' && rec.task) || fetchable) && !sent.mayReach(connection)) continue;
      if (resumable && rec.mode === 'task' && rec.task) {
        const live = sent.attach(connection);
        live.resumedAfterPause = true;
        sent.moveTo('tracking', null);
        sent.changed();
        if (rec.cancelRequested) void sent.sendCancel().catch((e) => connection.log.warn(`tasks/cancel failed: ${errorMessage(e)}`));
        else {
          // The question the server asked before the reload is asked again in the same session (keptQuestion.ts).
          sent.keeper.askAgain();
          live.resumePolling();
        }
      } else if (fetchable) {
        void sent.attach(connection).fetchResult();
      }
    }
    pump(this._tasks, this._queue, connection.id);
    await this.mergeServerList(connection).catch((e) => connection.log.warn(`tasks/list failed: ${errorMessage(e)}`));
  }

  /** The server disconnected: pause tracking its tasks until it is back. */
  onServerStopped(serverId: string, reason: string): void {
    for (const sent of [...this._tasks.all()]) {
      const rec = sent.record;
      if (rec.serverId === serverId && (rec.phase === 'tracking' || rec.phase === 'sending') && !isUnfollowedListed(rec)) sent.pause(reason);
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
  mergeServerList(connection: RequestorConnection): Promise<number> {
    return mergeServerList(this._tasks, connection);
  }

  /**
   * Drops finished tasks older than `maxFinishedAgeMs`, then the oldest finished (then orphaned)
   * tasks beyond `maxStoredTasks`; running ones are never dropped. Runs on load and every
   * `pruneIntervalMs` (a new task checks the count bound only); {@link onDidRemove} names what went.
   */
  prune(): number {
    return pruneRecords(this._tasks);
  }

  /** @internal For tests and the benchmark: the task object under `key`. */
  _task(key: string): SentTask | undefined {
    return this._tasks.get(key);
  }

  /** Writes pending changes now (e.g. before deactivation); resolves when stored. */
  flush(): Promise<void> {
    return this._sent.flush();
  }

  /**
   * The window is closing (deactivation): the calls in flight that end with it are stamped with
   * this moment as their end, so the next window's rows stop at it (persistence.ts markWindowEnd);
   * then written, like {@link flush}.
   */
  windowClosing(): Promise<void> {
    // Never read: nothing was sent from this window, and the stored tasks stay as they are.
    if (this._loaded) markWindowEnd(this._sent);
    return this._sent.flush();
  }

  /** A slot may have freed: start waiting calls once the current change is through. */
  private _schedulePump(): void {
    if (this._pumpScheduled || this._queue.size === 0 || this._isDisposed) return;
    this._pumpScheduled = true;
    queueMicrotask(() => {
      this._pumpScheduled = false;
      if (!this._isDisposed) this.startQueued();
    });
  }
}
