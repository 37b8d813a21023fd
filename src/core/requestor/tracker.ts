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
import { CreateTaskResultSchema, type CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  TaskStatusNotificationSchema,
  type CallToolResult,
  type Progress,
  type Task,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { definitionFingerprint, definitionKey, type ServerDefinition } from '../config/config.js';
import type { McpConnection } from '../connection/connection.js';
import { errorMessage } from '../base/errors.js';
import { DisposableStore, Emitter, type Event, type IDisposable } from '../base/events.js';
import { errorOutcome, type TaskOutcome } from '../base/taskOutcome.js';
import { MAX_TIMER_DELAY_MS } from '../config/limits.js';
import { isTerminal } from '../base/taskState.js';
import { DEFAULT_MAX_STORED_TASKS, ThrottledSaver, readStoredTasks, type StoredSentTask } from './trackerStore.js';
import { taskModeFor, type SentTaskChange, type SentTaskPhase, type SentTaskSnapshot, type TrackerOptions } from './trackerTypes.js';
import {
  backoffMs,
  firstZodIssue,
  forgetTaskProgress,
  isNetworkError,
  isZodError,
  linkedRequest,
  statusImpliedBy,
  summarize,
  terminalStatusIn,
} from './trackerUtil.js';

export type { TrackerStorage } from './trackerStore.js';
export { taskModeFor, type SentTaskChange, type SentTaskPhase, type SentTaskSnapshot, type TrackerOptions } from './trackerTypes.js';

interface LiveState {
  store: DisposableStore;
  controller: AbortController;
  connection: McpConnection;
  timer?: NodeJS.Timeout;
  /** `tasks/result` in flight. */
  resultCall?: Promise<void>;
  /** A `tasks/result` retry waiting for its backoff. */
  resultRetry?: NodeJS.Timeout;
  resultFailures: number;
  failures: number;
  networkFailures: number;
  /** `tasks/get` requests in flight (their answers schedule the next poll). */
  polling: number;
  /** `tasks/cancel` in flight. */
  cancelling?: Promise<void>;
  /** Settles when the creating `tools/call` has been answered (or failed). */
  created?: Promise<void>;
}

interface SentRecord extends StoredSentTask {
  /** Runtime only: when the last `tasks/get` went out (this session), so a resume waits out the pollInterval. */
  lastPollAt?: number;
  live?: LiveState;
}

const FINISHED_PHASES: ReadonlySet<SentTaskPhase> = new Set(['done', 'expired', 'error']);

/** Tracks every tool call sent to any server. Dispose to stop all polling and abort pending requests. */
export class TaskTracker implements IDisposable {
  private readonly _records = new Map<string, SentRecord>();
  private readonly _onDidChange = new Emitter<SentTaskChange>();
  /** Fires on every change of a sent task (coalesce in the UI). */
  readonly onDidChange: Event<SentTaskChange> = this._onDidChange.event;
  private readonly _now: () => number;
  private _plainCounter = 0;
  private _disposed = false;
  private readonly _connectionSubs = new Map<string, { connection: McpConnection; store: DisposableStore }>();
  private readonly _saver?: ThrottledSaver;

  constructor(private readonly _options: TrackerOptions) {
    this._now = _options.now ?? Date.now;
    if (_options.storage) {
      this._saver = new ThrottledSaver(_options.storage, () => [...this._records.values()].map(stored), _options.saveIntervalMs, this._now);
    }
    this._load();
  }

  /** Copies of all sent tasks, newest first. */
  snapshot(): SentTaskSnapshot[] {
    return [...this._records.values()].sort((a, b) => b.sentAt - a.sentAt).map(toSnapshot);
  }

  get(key: string): SentTaskSnapshot | undefined {
    const r = this._records.get(key);
    return r ? toSnapshot(r) : undefined;
  }

  /** Number of sent tasks not yet finished (sending, tracking). */
  get activeCount(): number {
    let n = 0;
    for (const r of this._records.values()) if (r.phase === 'sending' || r.phase === 'tracking') n++;
    return n;
  }

  /** Writes to storage so far (diagnostics; at most one per `saveIntervalMs`). */
  get storageWrites(): number {
    return this._saver?.writes ?? 0;
  }

  /**
   * Calls a tool on a running server: as a task when allowed (R-CAP-3/4), else plainly.
   * Resolves with the local key once the call is under way (a task) or finished (plain).
   */
  async callTool(
    connection: McpConnection,
    tool: Pick<Tool, 'name' | 'execution'>,
    args: Record<string, unknown>,
    options: { mode?: 'task' | 'plain'; signal?: AbortSignal } = {},
  ): Promise<string> {
    const client = connection.client;
    const serverTasks = !!connection.serverCapabilities?.tasks?.requests?.tools?.call;
    const mode = options.mode ?? taskModeFor(serverTasks, tool, this._options.optionalAsTask?.() ?? true);
    if (mode === 'task' && !serverTasks) {
      throw new McpError(ErrorCode.InvalidRequest, `Server "${connection.name}" does not support tasks for tools/call (R-CAP-3)`);
    }
    const rec: SentRecord = {
      key: `${connection.id}/call-${this._now().toString(36)}-${++this._plainCounter}`,
      serverId: connection.id,
      serverName: connection.name,
      definitionKey: definitionKey(connection.definition),
      toolName: tool.name,
      argsSummary: summarize(args),
      mode,
      origin: 'local',
      sentAt: this._now(),
      phase: 'sending',
      polls: 0,
      resultFetches: 0,
    };
    const live = this._attach(rec, connection);
    let created!: () => void;
    live.created = new Promise<void>((resolve) => (created = resolve));
    options.signal?.addEventListener('abort', () => live.controller.abort(options.signal?.reason), { once: true });
    this._records.set(rec.key, rec);
    this._changed(rec, 'added');
    this._prune();

    const onprogress = (p: Progress) => {
      rec.progress = { progress: p.progress, total: p.total, message: p.message };
      this._changed(rec);
    };

    try {
      if (mode === 'plain') {
        try {
          const result = await linkedRequest(live.controller.signal, (signal) =>
            client.callTool({ name: tool.name, arguments: args }, CallToolResultSchema, { signal, onprogress, timeout: MAX_TIMER_DELAY_MS }),
          );
          rec.outcome = { kind: 'result', result };
          rec.resultFetches = 1;
          this._finish(rec, 'done');
        } catch (e) {
          rec.outcome = errorOutcome(e);
          this._finish(rec, 'done', live.controller.signal.aborted ? 'cancelled by the user' : undefined);
        }
        return rec.key;
      }

      let result: CreateTaskResult;
      try {
        const ttl = this._options.ttlMs?.();
        result = await linkedRequest(live.controller.signal, (signal) =>
          client.request({ method: 'tools/call', params: { name: tool.name, arguments: args } }, CreateTaskResultSchema, {
            task: ttl === undefined ? {} : { ttl },
            signal,
            onprogress,
          }),
        );
      } catch (e) {
        rec.outcome = errorOutcome(e);
        const abandoned = rec.cancelRequested && live.controller.signal.aborted;
        rec.cancelRequested = undefined;
        const invalid = isZodError(e);
        this._finish(
          rec,
          'error',
          abandoned
            ? 'Cancelled before the server named the task: the tools/call request was abandoned (notifications/cancelled). If the server had created the task already, it may still run there.'
            : invalid
              ? `the server answered with an invalid CreateTaskResult: ${firstZodIssue(e)}`
              : `tools/call failed: ${errorMessage(e)}`,
        );
        return rec.key;
      }
      // Re-key by the server's task id.
      this._records.delete(rec.key);
      this._onDidChange.fire({ key: rec.key, kind: 'removed' });
      rec.key = `${connection.id}/${result.task.taskId}`;
      this._makeRoomFor(rec);
      rec.task = result.task;
      rec.phase = 'tracking';
      this._records.set(rec.key, rec);
      this._changed(rec, 'added');
      if (rec.cancelRequested && rec.live === live) {
        // Cancel was pressed before the task id was known: cancel now, before anything else.
        void this._sendCancel(rec).catch((e) => connection.log.warn(`tasks/cancel failed: ${errorMessage(e)}`));
      } else {
        this._afterUpdate(rec);
      }
      return rec.key;
    } finally {
      created();
    }
  }

  /**
   * Cancels a sent task (`tasks/cancel`) or aborts a plain call. Never throws for a task that
   * cannot be cancelled now; the snapshot's `reason` says why, or when the cancel will go out:
   * pressed before the CreateTaskResult arrived, it goes out as soon as the task id is known (and
   * this resolves then), and pressed once more meanwhile, the request is abandoned; while the
   * server is disconnected, it goes out once the server is back.
   */
  async cancel(key: string): Promise<SentTaskSnapshot> {
    const rec = this._require(key);
    if (rec.mode === 'plain') {
      rec.live?.controller.abort(new Error('cancelled by the user'));
      return toSnapshot(rec);
    }
    switch (rec.phase) {
      case 'orphaned':
        rec.reason = `"${rec.serverName}" is no longer configured, so it cannot be cancelled from here (it may still run on that server). Dismiss it to forget it.`;
        this._changed(rec);
        return toSnapshot(rec);
      case 'sending': {
        if (rec.cancelRequested && rec.live) {
          // Pressed again while the server still has not named the task: abandon the request
          // (the SDK sends notifications/cancelled for it).
          rec.live.controller.abort(new Error('cancelled by the user before the server named the task'));
          await rec.live.created;
          return toSnapshot(rec);
        }
        rec.cancelRequested = true;
        rec.reason = 'Cancel requested: tasks/cancel goes out as soon as the server names the task.';
        this._changed(rec);
        await rec.live?.created;
        await rec.live?.cancelling?.catch(() => undefined);
        return toSnapshot(rec);
      }
      case 'done':
      case 'expired':
      case 'error':
        if (rec.task && isTerminal(rec.task.status)) break;
        rec.reason = rec.task ? `It is no longer tracked (${rec.phase}); nothing to cancel.` : 'It never became a task on the server; nothing to cancel.';
        this._changed(rec);
        return toSnapshot(rec);
      case 'tracking':
      case 'paused':
        break;
    }
    if (!rec.task || isTerminal(rec.task.status)) {
      rec.reason = rec.task ? `Already ${rec.task.status}; nothing to cancel.` : 'It never became a task on the server; nothing to cancel.';
      this._changed(rec);
      return toSnapshot(rec);
    }
    const live = rec.live;
    if (!live || live.connection.state.kind !== 'running') {
      rec.cancelRequested = true;
      rec.reason = `Cancel requested: tasks/cancel goes out when "${rec.serverName}" is connected again.`;
      this._changed(rec);
      return toSnapshot(rec);
    }
    await this._sendCancel(rec);
    return toSnapshot(rec);
  }

  /**
   * Fetches the payload of a terminal task that has none yet (a network error, or a result too
   * large to store); resolves with the task as it stands after one attempt.
   */
  async retrieve(key: string): Promise<SentTaskSnapshot> {
    const rec = this._require(key);
    const status = rec.task?.status;
    if (rec.outcome || rec.mode !== 'task' || (status !== 'completed' && status !== 'failed')) return toSnapshot(rec);
    let live = rec.live;
    if (!live) {
      const connection = this._connectionOf(rec);
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
    await this._fetchResult(rec);
    return toSnapshot(rec);
  }

  /** Forgets a task that is not running (finished, paused or orphaned), its result too. */
  remove(key: string): void {
    const rec = this._records.get(key);
    if (!rec) return;
    if (rec.phase === 'sending' || rec.phase === 'tracking') throw new Error(`Task ${key} is still running; cancel it first`);
    this._drop(rec);
  }

  /** Removes every finished task. */
  clearFinished(): number {
    let n = 0;
    for (const rec of [...this._records.values()]) {
      if (FINISHED_PHASES.has(rec.phase)) {
        this.remove(rec.key);
        n++;
      }
    }
    return n;
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
    const byKey = new Map(definitions.map((d) => [definitionKey(d), d]));
    const byId = new Map(definitions.map((d) => [d.id, d]));
    const moves: Array<[SentRecord, string]> = [];
    for (const rec of [...this._records.values()]) {
      if (!rec.definitionKey) {
        const d = byId.get(rec.serverId);
        if (d) rec.definitionKey = definitionKey(d);
      }
      const def = rec.definitionKey ? byKey.get(rec.definitionKey) : undefined;
      if (def) {
        rec.serverName = def.name;
        const c = rec.live?.connection;
        if (c && (c.id !== def.id || definitionFingerprint(c.definition) !== definitionFingerprint(def))) {
          this._pause(rec, `The definition of "${def.name}" changed; waiting for it to start again`);
        }
        if (rec.phase === 'orphaned') {
          rec.phase = 'paused';
          rec.reason = `Waiting for "${def.name}" to connect`;
          this._changed(rec);
        }
        if (rec.serverId !== def.id) moves.push([rec, def.id]);
      } else {
        if (rec.phase === 'tracking' || rec.phase === 'paused') {
          this._detach(rec);
          rec.phase = 'orphaned';
          rec.reason = `"${rec.serverName}" is no longer configured; the task may still run there, but it cannot be reached from here. Dismiss it to forget it.`;
          this._changed(rec);
        }
        const orphanId = orphanServerId(rec);
        if (rec.serverId !== orphanId) moves.push([rec, orphanId]);
      }
    }
    this._move(moves);
  }

  /**
   * The server (re)connected: resume tracking its paused tasks (sending a requested cancel
   * first), fetch missing payloads and merge its `tasks/list` (R-LIST) so tasks from elsewhere
   * show up. Only tasks of this very definition are touched.
   */
  async onServerRunning(connection: McpConnection): Promise<void> {
    const key = this._claim(connection);
    for (const rec of [...this._records.values()]) {
      if (rec.definitionKey !== key) continue;
      rec.serverName = connection.name;
      const resumable = rec.phase === 'paused' || rec.phase === 'orphaned' || (rec.phase === 'tracking' && rec.live?.connection !== connection);
      if (resumable && rec.mode === 'task' && rec.task) {
        this._attach(rec, connection);
        rec.phase = 'tracking';
        rec.reason = undefined;
        this._changed(rec);
        if (rec.cancelRequested) void this._sendCancel(rec).catch((e) => connection.log.warn(`tasks/cancel failed: ${errorMessage(e)}`));
        else this._resumePolling(rec);
      } else if (rec.phase === 'done' && rec.mode === 'task' && !rec.outcome && !rec.outcomeDropped && rec.task && (rec.task.status === 'completed' || rec.task.status === 'failed')) {
        this._attach(rec, connection);
        void this._fetchResult(rec);
      }
    }
    await this.mergeServerList(connection).catch((e) => connection.log.warn(`tasks/list failed: ${errorMessage(e)}`));
  }

  /** The server disconnected: pause tracking its tasks until it is back. */
  onServerStopped(serverId: string, reason: string): void {
    for (const rec of [...this._records.values()]) {
      if (rec.serverId === serverId && (rec.phase === 'tracking' || rec.phase === 'sending')) this._pause(rec, reason);
    }
  }

  /** Reads every page of the server's `tasks/list` and adds the tasks this window does not know. */
  async mergeServerList(connection: McpConnection): Promise<number> {
    if (!connection.serverCapabilities?.tasks?.list) return 0;
    const defKey = this._claim(connection);
    let cursor: string | undefined;
    let added = 0;
    const seen = new Set<string>();
    for (let page = 0; page < 1000; page++) {
      const res = await connection.client.experimental.tasks.listTasks(cursor);
      for (const task of res.tasks) {
        const key = `${connection.id}/${task.taskId}`;
        const rec = this._records.get(key);
        if (rec && rec.definitionKey === defKey) {
          if (!rec.live && rec.phase !== 'done') this._applyTask(rec, task);
          continue;
        }
        const listed: SentRecord = {
          key,
          serverId: connection.id,
          serverName: connection.name,
          definitionKey: defKey,
          toolName: '(task from elsewhere)',
          argsSummary: '',
          mode: 'task',
          origin: 'listed',
          sentAt: Date.parse(task.createdAt) || this._now(),
          phase: 'tracking',
          task,
          polls: 0,
          resultFetches: 0,
        };
        this._makeRoomFor(listed);
        this._records.set(key, listed);
        this._attach(listed, connection);
        this._changed(listed, 'added');
        this._afterUpdate(listed);
        added++;
      }
      if (!res.nextCursor || seen.has(res.nextCursor)) break;
      seen.add(res.nextCursor);
      cursor = res.nextCursor;
    }
    if (added) this._prune();
    return added;
  }

  /** Drops the oldest finished (then orphaned) tasks beyond `maxStoredTasks`; running ones are never dropped. */
  prune(): number {
    return this._prune();
  }

  dispose(): void {
    if (this._disposed) return;
    void this._saver?.dispose();
    this._disposed = true;
    for (const rec of this._records.values()) this._detach(rec);
    for (const s of this._connectionSubs.values()) s.store.dispose();
    this._onDidChange.dispose();
  }

  /** Writes pending changes now (e.g. before deactivation); resolves when stored. */
  flush(): Promise<void> {
    return this._saver?.flush() ?? Promise.resolve();
  }

  // ---- identity ---------------------------------------------------------------------------

  /**
   * Makes the tasks under `connection.id` the ones of its definition: tasks of another
   * definition that were shown under that id move to their own (orphan) server id; tasks of this
   * definition shown under another id (its id changed) move here. Returns the definition key.
   */
  private _claim(connection: McpConnection): string {
    const key = definitionKey(connection.definition);
    const away: Array<[SentRecord, string]> = [];
    const here: Array<[SentRecord, string]> = [];
    for (const rec of this._records.values()) {
      if (!rec.definitionKey && rec.serverId === connection.id) rec.definitionKey = key; // stored before keys were kept
      if (rec.definitionKey === key && rec.serverId !== connection.id) here.push([rec, connection.id]);
      else if (rec.definitionKey !== key && rec.serverId === connection.id) away.push([rec, orphanServerId(rec)]);
    }
    this._move([...away, ...here]);
    return key;
  }

  /** Re-keys records under new server ids (all removed first, so swaps cannot collide). */
  private _move(moves: ReadonlyArray<readonly [SentRecord, string]>): void {
    if (!moves.length) return;
    for (const [rec] of moves) {
      this._records.delete(rec.key);
      this._onDidChange.fire({ key: rec.key, kind: 'removed' });
    }
    for (const [rec, serverId] of moves) {
      const local = rec.key.slice(rec.serverId.length + 1);
      rec.serverId = serverId;
      rec.key = `${serverId}/${local}`;
      for (let n = 2; this._records.has(rec.key); n++) rec.key = `${serverId}/${local}~${n}`;
      this._records.set(rec.key, rec);
      this._changed(rec, 'added');
    }
  }

  /** Frees `rec.key` for `rec`: a record of another definition moves away; a duplicate of the same task is replaced. */
  private _makeRoomFor(rec: SentRecord): void {
    const other = this._records.get(rec.key);
    if (!other || other === rec) return;
    if (other.definitionKey === rec.definitionKey) this._drop(other);
    else this._move([[other, orphanServerId(other)]]);
  }

  /** The connection a record belongs to, if it is configured (same definition). */
  private _connectionOf(rec: SentRecord): McpConnection | undefined {
    const c = rec.live?.connection ?? this._options.connectionFor(rec.serverId);
    return c && (!rec.definitionKey || definitionKey(c.definition) === rec.definitionKey) ? c : undefined;
  }

  // ---- tracking ---------------------------------------------------------------------------

  private _attach(rec: SentRecord, connection: McpConnection): LiveState {
    this._detach(rec);
    const store = new DisposableStore();
    const controller = new AbortController();
    store.add({ dispose: () => controller.abort(new Error('stopped tracking')) });
    rec.live = { store, controller, failures: 0, networkFailures: 0, resultFailures: 0, polling: 0, connection };
    this._watchConnection(connection);
    return rec.live;
  }

  private _detach(rec: SentRecord): void {
    const live = rec.live;
    if (!live) return;
    rec.live = undefined;
    if (live.timer) clearTimeout(live.timer);
    if (live.resultRetry) clearTimeout(live.resultRetry);
    live.store.dispose();
    // R-PROGRESS-1 ends with tracking: drop the progress handler the SDK keeps for the task's
    // creating request (it only does so itself for tasks in its own store).
    if (rec.task) forgetTaskProgress(live.connection, rec.task.taskId);
  }

  /** Stops tracking until the server is back (a plain call in flight has lost its answer). */
  private _pause(rec: SentRecord, reason: string): void {
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
  private _connectionLost(connection: McpConnection): void {
    for (const rec of [...this._records.values()]) {
      if (rec.live?.connection === connection) this._pause(rec, `"${rec.serverName}" disconnected`);
    }
  }

  /** One listener per connection for `notifications/tasks/status` (R-NOTIFY-2: an extra update, not a replacement for polling). */
  private _watchConnection(connection: McpConnection): void {
    const existing = this._connectionSubs.get(connection.id);
    if (existing?.connection === connection) return;
    existing?.store.dispose();
    const store = new DisposableStore();
    this._connectionSubs.set(connection.id, { connection, store });
    store.add(
      connection.onDidReceiveNotification((msg) => {
        if (!('method' in msg) || msg.method !== 'notifications/tasks/status') return;
        const parsed = TaskStatusNotificationSchema.safeParse(msg);
        if (!parsed.success) return;
        const { _meta: _ignored, ...task } = parsed.data.params;
        const rec = this._records.get(`${connection.id}/${task.taskId}`);
        if (rec?.live?.connection === connection && rec.task && !isTerminal(rec.task.status)) {
          this._applyTask(rec, task as Task);
          this._afterUpdate(rec, /* extra */ true);
        }
      }),
    );
  }

  private _applyTask(rec: SentRecord, task: Task): void {
    if (rec.task && isTerminal(rec.task.status) && !isTerminal(task.status)) return; // never move back
    rec.task = { ...task };
    this._changed(rec);
  }

  /**
   * Decides what to do after the task changed: fetch, answer input, or poll again. `extra`: the
   * update did not come from a poll answer (a notification, a cancel answer, a result); it never
   * postpones a due poll nor starts one while one is due or in flight (R-GET-1, R-NOTIFY-2).
   */
  private _afterUpdate(rec: SentRecord, extra = false): void {
    const live = rec.live;
    const task = rec.task;
    if (!live || !task) return;
    // Ended by its ttl without reaching a terminal status: stop, with the reason.
    if (!isTerminal(task.status) && task.ttl !== null && Date.parse(task.createdAt) + task.ttl < this._now()) {
      this._detach(rec);
      this._finish(rec, 'expired', `It outlived its ttl (${task.ttl} ms) without finishing; last status '${task.status}'.`);
      return;
    }
    switch (task.status) {
      case 'input_required':
        // R-RESULT-4: call tasks/result at once; the server's requests arrive on it. Keep polling (R-GET-1).
        void this._fetchResult(rec);
        break;
      case 'completed':
      case 'failed':
        if (live.timer) clearTimeout(live.timer);
        live.timer = undefined;
        if (rec.outcome) this._finish(rec, 'done');
        else void this._fetchResult(rec);
        return;
      case 'cancelled':
        // A cancelled task has no payload: not the error of an abandoned tasks/result either.
        if (rec.outcome?.kind === 'error') rec.outcome = undefined;
        this._detach(rec);
        this._finish(rec, 'done');
        return;
      case 'working':
        break;
    }
    if (!extra || (!live.timer && live.polling === 0)) this._schedulePoll(rec);
  }

  /** The interval to wait before the next `tasks/get`: the latest `pollInterval` (R-GET-1), within bounds. */
  private _interval(rec: SentRecord, atLeastMs = 0): number {
    return Math.min(
      Math.max(rec.task?.pollInterval ?? this._options.defaultPollIntervalMs ?? 1000, this._options.minPollIntervalMs ?? 100, atLeastMs),
      MAX_TIMER_DELAY_MS,
    );
  }

  private _schedulePoll(rec: SentRecord, atLeastMs = 0): void {
    this._pollIn(rec, this._interval(rec, atLeastMs));
  }

  private _pollIn(rec: SentRecord, delayMs: number): void {
    const live = rec.live;
    if (!live || !rec.task) return;
    if (live.timer) clearTimeout(live.timer);
    live.timer = setTimeout(() => {
      live.timer = undefined;
      void this._pollOnce(rec).catch(() => undefined);
    }, delayMs);
  }

  /** Resumes polling, waiting out what is left of the pollInterval since the last `tasks/get`. */
  private _resumePolling(rec: SentRecord): void {
    const since = rec.lastPollAt === undefined ? Infinity : this._now() - rec.lastPollAt;
    const left = this._interval(rec) - since;
    if (left > 0) this._pollIn(rec, left);
    else void this._pollOnce(rec).catch(() => undefined);
  }

  private async _pollOnce(rec: SentRecord): Promise<void> {
    const live = rec.live;
    if (!live || !rec.task) return;
    rec.polls++;
    rec.lastPollAt = this._now();
    let task: Task;
    live.polling++;
    try {
      const taskId = rec.task.taskId;
      task = await linkedRequest(live.controller.signal, (signal) => live.connection.client.experimental.tasks.getTask(taskId, { signal }));
    } catch (e) {
      live.polling--;
      if (rec.live !== live) return;
      if ((e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || live.connection.state.kind !== 'running') {
        this._connectionLost(live.connection);
        return;
      }
      if (rec.outcome) {
        // Only the final status was missing (tasks/result already answered): keep what the payload says.
        this._finishWithOutcome(rec);
        return;
      }
      if (e instanceof McpError && e.code === ErrorCode.InvalidParams) {
        this._detach(rec);
        this._finish(rec, 'expired', `The server no longer knows this task: ${e.message}`);
        return;
      }
      if (isNetworkError(e)) {
        // Not the task's fault: the connection notices a server that is gone (and pauses us);
        // until then, ask again with a growing delay.
        live.networkFailures++;
        this._schedulePoll(rec, backoffMs(live.networkFailures + 1, 500));
        return;
      }
      live.failures++;
      const max = this._options.maxPollFailures ?? 3;
      if (live.failures >= max) {
        this._detach(rec);
        this._finish(rec, 'error', `tasks/get failed ${live.failures} times in a row; last: ${isZodError(e) ? `invalid answer: ${firstZodIssue(e)}` : errorMessage(e)}`);
        return;
      }
      this._schedulePoll(rec);
      return;
    }
    live.polling--;
    if (rec.live !== live) return;
    live.failures = 0;
    live.networkFailures = 0;
    if (task.taskId !== rec.task.taskId) {
      this._detach(rec);
      this._finish(rec, 'error', `tasks/get answered for a different task (${task.taskId})`);
      return;
    }
    this._applyTask(rec, task);
    this._afterUpdate(rec);
  }

  /**
   * Fetches `tasks/result` once per record (R-RESULT-1/2/4): the result, or the JSON-RPC error.
   * A network error is retried with backoff; after `maxResultAttempts` a terminal task rests as
   * `done` without payload, and Retrieve Result (or the next connect) asks again.
   */
  private _fetchResult(rec: SentRecord): Promise<void> {
    const live = rec.live;
    if (!live || !rec.task || rec.outcome) return Promise.resolve();
    if (live.resultCall) return live.resultCall;
    if (live.resultRetry) return Promise.resolve();
    const taskId = rec.task.taskId;
    const call = (async () => {
      let outcome: TaskOutcome;
      try {
        const result: CallToolResult = await linkedRequest(live.controller.signal, (signal) =>
          live.connection.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { signal, timeout: MAX_TIMER_DELAY_MS }),
        );
        outcome = { kind: 'result', result };
      } catch (e) {
        if (rec.live !== live) return;
        live.resultCall = undefined;
        if ((e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || live.connection.state.kind !== 'running') {
          this._connectionLost(live.connection);
          return;
        }
        if (isNetworkError(e)) {
          this._resultFailedToArrive(rec, live, e);
          return;
        }
        outcome = errorOutcome(e);
      }
      if (rec.live !== live) return;
      live.resultCall = undefined;
      live.resultFailures = 0;
      rec.resultFetches++;
      rec.outcome = outcome;
      rec.outcomeDropped = undefined;
      if (rec.reason?.startsWith('tasks/result')) rec.reason = undefined;
      if (rec.phase === 'done' || isTerminal(rec.task!.status)) {
        this._finish(rec, 'done');
        return;
      }
      // tasks/result answered, so the task is terminal (R-RESULT-2); its final status comes with
      // the next tasks/get when it is due — never sooner than the pollInterval (R-GET-1; issue 12).
      this._changed(rec);
      this._afterUpdate(rec, /* extra */ true);
    })();
    live.resultCall = call;
    return call;
  }

  private _resultFailedToArrive(rec: SentRecord, live: LiveState, e: unknown): void {
    live.resultFailures++;
    const terminal = !!rec.task && isTerminal(rec.task.status);
    if (live.resultFailures >= (this._options.maxResultAttempts ?? 6)) {
      live.resultFailures = 0;
      // Not terminal (input_required): polling goes on and asks again on the next such answer.
      if (terminal || rec.phase === 'done') {
        this._finish(rec, 'done', `tasks/result could not reach "${rec.serverName}" (${errorMessage(e)}); Retrieve Result tries again.`);
      }
      return;
    }
    const delay = backoffMs(live.resultFailures, this._options.resultRetryBaseMs ?? 500);
    rec.reason = `tasks/result failed (${errorMessage(e)}); trying again in ${Math.ceil(delay / 100) / 10} s`;
    this._changed(rec);
    live.resultRetry = setTimeout(() => {
      live.resultRetry = undefined;
      if (rec.live === live) void this._fetchResult(rec);
    }, delay);
  }

  /** Finishes a task whose payload is known but whose final status could not be polled. */
  private _finishWithOutcome(rec: SentRecord): void {
    if (rec.task && rec.outcome && !isTerminal(rec.task.status)) rec.task = { ...rec.task, status: statusImpliedBy(rec.outcome) };
    this._finish(rec, 'done');
  }

  /** Sends `tasks/cancel` once (concurrent calls share it) and acts on the answer. */
  private _sendCancel(rec: SentRecord): Promise<void> {
    const live = rec.live;
    if (!live || !rec.task) return Promise.resolve();
    if (live.cancelling) return live.cancelling;
    const taskId = rec.task.taskId;
    const call = (async () => {
      try {
        const task = await linkedRequest(live.controller.signal, (signal) => live.connection.client.experimental.tasks.cancelTask(taskId, { signal }));
        rec.cancelRequested = undefined;
        if (rec.live !== live) return;
        if (rec.reason?.startsWith('Cancel requested')) rec.reason = undefined;
        this._applyTask(rec, task);
        // R-CANCEL-2: the answer is the cancelled Task; act on it now (stop polling, abort an
        // outstanding tasks/result) instead of waiting for the next poll to report it.
        this._afterUpdate(rec, /* extra */ true);
      } catch (e) {
        if (!(e instanceof McpError && e.code === ErrorCode.InvalidParams)) {
          if (rec.live !== live) throw e;
          if ((e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || live.connection.state.kind !== 'running') {
            // Not sent: it goes out when the server is back.
            this._connectionLost(live.connection);
            rec.cancelRequested = true;
            rec.reason = `Cancel requested: tasks/cancel goes out when "${rec.serverName}" is connected again.`;
            this._changed(rec);
            return;
          }
          rec.cancelRequested = undefined;
          rec.reason = `tasks/cancel failed: ${errorMessage(e)}`;
          this._changed(rec);
          this._afterUpdate(rec, true);
          throw e;
        }
        rec.cancelRequested = undefined;
        // R-CANCEL-1: the task ended before the cancel arrived (or, R-GET-2, the server forgot it).
        // Say so, and take the terminal status the answer names; no extra tasks/get: polling
        // goes on at its pace (R-GET-1).
        rec.reason = `The server could not cancel it: ${e.message}`;
        this._changed(rec);
        if (rec.live !== live) return;
        const status = terminalStatusIn(e.message);
        if (status && rec.task && !isTerminal(rec.task.status)) this._applyTask(rec, { ...rec.task, status });
        this._afterUpdate(rec, /* extra */ true);
      } finally {
        live.cancelling = undefined;
      }
    })();
    live.cancelling = call;
    return call;
  }

  private _finish(rec: SentRecord, phase: SentTaskPhase, reason?: string): void {
    rec.phase = phase;
    if (reason !== undefined) rec.reason = reason;
    if (rec.live) this._detach(rec);
    this._changed(rec);
  }

  private _drop(rec: SentRecord): void {
    this._detach(rec);
    this._records.delete(rec.key);
    this._onDidChange.fire({ key: rec.key, kind: 'removed' });
    this._saver?.schedule();
  }

  private _changed(rec: SentRecord, kind: SentTaskChange['kind'] = 'updated'): void {
    this._onDidChange.fire({ key: rec.key, kind });
    this._saver?.schedule();
  }

  private _require(key: string): SentRecord {
    const rec = this._records.get(key);
    if (!rec) throw new McpError(ErrorCode.InvalidParams, `No sent task with key ${key}`);
    return rec;
  }

  // ---- persistence ------------------------------------------------------------------------

  private _load(): void {
    const storage = this._options.storage;
    if (!storage) return;
    let raw: unknown;
    try {
      raw = storage.load();
    } catch {
      return; // unreadable storage: start empty rather than fail
    }
    for (const t of readStoredTasks(raw).tasks) {
      const rec: SentRecord = { ...t };
      if (rec.phase === 'tracking' || rec.phase === 'sending') {
        if (rec.mode === 'plain' || rec.phase === 'sending' || !rec.task) {
          rec.phase = 'error';
          rec.reason = 'The window was reloaded while the call was in flight; its answer was lost.';
        } else {
          rec.phase = 'paused';
          rec.reason = 'Waiting for the server to connect after a reload';
        }
      }
      this._records.set(rec.key, rec);
    }
    this._prune();
  }

  private _prune(): number {
    const max = Math.max(1, this._options.maxStoredTasks?.() ?? DEFAULT_MAX_STORED_TASKS);
    if (this._records.size <= max) return 0;
    const oldestFirst = (a: SentRecord, b: SentRecord) => a.sentAt - b.sentAt;
    const candidates = [
      ...[...this._records.values()].filter((r) => FINISHED_PHASES.has(r.phase)).sort(oldestFirst),
      ...[...this._records.values()].filter((r) => r.phase === 'orphaned').sort(oldestFirst),
    ];
    let n = 0;
    for (const rec of candidates) {
      if (this._records.size <= max) break;
      this._drop(rec);
      n++;
    }
    return n;
  }
}

/** The server id of a task whose definition is not (or no longer) under its id: one per definition. */
function orphanServerId(rec: Pick<SentRecord, 'definitionKey' | 'serverId'>): string {
  return rec.definitionKey ?? rec.serverId;
}

/** The stored form of a record (no runtime state). */
function stored(r: SentRecord): StoredSentTask {
  const { live: _live, lastPollAt: _lastPollAt, ...plain } = r;
  return plain;
}

function toSnapshot(r: SentRecord): SentTaskSnapshot {
  return {
    key: r.key,
    serverId: r.serverId,
    serverName: r.serverName,
    definitionKey: r.definitionKey,
    toolName: r.toolName,
    argsSummary: r.argsSummary,
    mode: r.mode,
    origin: r.origin,
    sentAt: r.sentAt,
    phase: r.phase,
    reason: r.reason,
    task: r.task ? { ...r.task } : undefined,
    progress: r.progress ? { ...r.progress } : undefined,
    outcome: r.outcome ? structuredClone(r.outcome) : undefined,
    cancelRequested: r.cancelRequested,
    polls: r.polls,
    resultFetches: r.resultFetches,
  };
}
