/**
 * The requestor side: tool calls this host sends to servers, as tasks where the server and
 * the tool allow it (R-CAP-3/4), tracked to the end: `tasks/get` polling at the latest
 * `pollInterval` (R-GET-1), status notifications as extra updates (R-NOTIFY-2), `tasks/result`
 * on `input_required` (R-RESULT-4) and on `completed` *and* `failed` (R-RESULT-1), progress for
 * the task's whole life (R-PROGRESS-1), cancel through `tasks/cancel`, and persistence across
 * reloads.
 */
import { z } from 'zod';
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
import type { McpConnection } from './connection.js';
import { errorMessage } from './errors.js';
import { DisposableStore, Emitter, type Event, type IDisposable } from './events.js';
import { MAX_TIMER_DELAY_MS, errorOutcome, type TaskOutcome } from './ledger.js';
import { isTerminal } from './taskState.js';

/** Where a sent task stands locally (the server's view is in `task`). */
export type SentTaskPhase =
  /** The request is on its way (no CreateTaskResult yet / plain call running). */
  | 'sending'
  /** Being tracked: polling `tasks/get`. */
  | 'tracking'
  /** Waiting for its server to connect again (after a reload or a disconnect). */
  | 'paused'
  /** Terminal and, where there is one, its payload fetched. */
  | 'done'
  /** The server no longer knows it, or it outlived its ttl. */
  | 'expired'
  /** Ended locally with an error (bad answers from the server, failed request). */
  | 'error';

/** A tool call this host sent, as the UI sees it (a copy). */
export interface SentTaskSnapshot {
  /** Stable local key: `<serverId>/<taskId>` for tasks, `<serverId>/call-<n>` for plain calls. */
  readonly key: string;
  readonly serverId: string;
  readonly serverName: string;
  readonly toolName: string;
  readonly argsSummary: string;
  readonly mode: 'task' | 'plain';
  /** `local`: sent from this window; `listed`: found through `tasks/list` (another window or session). */
  readonly origin: 'local' | 'listed';
  readonly sentAt: number;
  readonly phase: SentTaskPhase;
  /** Why the phase is `paused`, `expired` or `error`, or a one-off explanation (e.g. cancel came too late). */
  readonly reason?: string;
  /** The last Task the server reported. */
  readonly task?: Task;
  readonly progress?: { readonly progress: number; readonly total?: number; readonly message?: string };
  /** The payload of `tasks/result` (or the plain call's answer). */
  readonly outcome?: TaskOutcome;
  /** Number of `tasks/get` requests sent for it (for diagnostics and the benchmark). */
  readonly polls: number;
  /** Number of times its payload was fetched. */
  readonly resultFetches: number;
}

export interface SentTaskChange {
  readonly key: string;
  readonly kind: 'added' | 'updated' | 'removed';
}

/** Persisted sent tasks (workspace storage in VS Code). */
export interface TrackerStorage {
  load(): unknown;
  save(data: unknown): void | Thenable<void>;
}
interface Thenable<T> {
  then<R>(onfulfilled?: (value: T) => R, onrejected?: (reason: unknown) => R): PromiseLike<R> | unknown;
}

export interface TrackerOptions {
  /** Finds the connection for a server id (undefined when not configured). */
  readonly connectionFor: (serverId: string) => McpConnection | undefined;
  readonly storage?: TrackerStorage;
  /** ttl requested for new tasks (ms); undefined lets the server choose. */
  readonly ttlMs?: () => number | undefined;
  /** Call `optional` tools as tasks (default true). */
  readonly optionalAsTask?: () => boolean;
  /** `tasks/get` interval when the server gives no `pollInterval`. */
  readonly defaultPollIntervalMs?: number;
  /** Smallest interval honoured, against servers that ask for a flood. */
  readonly minPollIntervalMs?: number;
  /** Consecutive failed/garbled `tasks/get` answers before giving up on a task. */
  readonly maxPollFailures?: number;
  readonly now?: () => number;
}

/** Whether a tool call goes out as a task (R-CAP-3, R-CAP-4). */
export function taskModeFor(
  serverTasksToolsCall: boolean,
  tool: Pick<Tool, 'execution'> | undefined,
  optionalAsTask: boolean,
): 'task' | 'plain' {
  if (!serverTasksToolsCall) return 'plain';
  const support = tool?.execution?.taskSupport;
  switch (support) {
    case 'required':
      return 'task';
    case 'optional':
      return optionalAsTask ? 'task' : 'plain';
    case 'forbidden':
    case undefined:
      return 'plain';
    default:
      return 'plain';
  }
}

interface SentRecord {
  key: string;
  serverId: string;
  serverName: string;
  toolName: string;
  argsSummary: string;
  mode: 'task' | 'plain';
  origin: 'local' | 'listed';
  sentAt: number;
  phase: SentTaskPhase;
  reason?: string;
  task?: Task;
  progress?: { progress: number; total?: number; message?: string };
  outcome?: TaskOutcome;
  polls: number;
  resultFetches: number;
  // --- runtime only
  live?: {
    store: DisposableStore;
    controller: AbortController;
    timer?: NodeJS.Timeout;
    resultCall?: Promise<void>;
    failures: number;
    networkFailures: number;
    /** `tasks/get` requests in flight (their answers schedule the next poll). */
    polling: number;
    connection: McpConnection;
    cancelNoted?: boolean;
  };
}

const persistedSchema = z.object({
  version: z.literal(1),
  tasks: z.array(
    z.object({
      key: z.string(),
      serverId: z.string(),
      serverName: z.string(),
      toolName: z.string(),
      argsSummary: z.string(),
      mode: z.enum(['task', 'plain']),
      origin: z.enum(['local', 'listed']),
      sentAt: z.number(),
      phase: z.enum(['sending', 'tracking', 'paused', 'done', 'expired', 'error']),
      reason: z.string().optional(),
      task: z.any().optional(),
      progress: z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() }).optional(),
      outcome: z.any().optional(),
      polls: z.number().default(0),
      resultFetches: z.number().default(0),
    }),
  ),
});

/** Tracks every tool call sent to any server. Dispose to stop all polling and abort pending requests. */
export class TaskTracker implements IDisposable {
  private readonly _records = new Map<string, SentRecord>();
  private readonly _onDidChange = new Emitter<SentTaskChange>();
  /** Fires on every change of a sent task (coalesce in the UI). */
  readonly onDidChange: Event<SentTaskChange> = this._onDidChange.event;
  private readonly _now: () => number;
  private _plainCounter = 0;
  private _saveScheduled = false;
  private _disposed = false;
  private readonly _connectionSubs = new Map<string, DisposableStore>();

  constructor(private readonly _options: TrackerOptions) {
    this._now = _options.now ?? Date.now;
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
    options.signal?.addEventListener('abort', () => live.controller.abort(options.signal?.reason), { once: true });
    this._records.set(rec.key, rec);
    this._changed(rec, 'added');

    const onprogress = (p: Progress) => {
      rec.progress = { progress: p.progress, total: p.total, message: p.message };
      this._changed(rec);
    };

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

    let created: CreateTaskResult;
    try {
      const ttl = this._options.ttlMs?.();
      created = await linkedRequest(live.controller.signal, (signal) =>
        client.request({ method: 'tools/call', params: { name: tool.name, arguments: args } }, CreateTaskResultSchema, {
          task: ttl === undefined ? {} : { ttl },
          signal,
          onprogress,
        }),
      );
    } catch (e) {
      rec.outcome = errorOutcome(e);
      const invalid = isZodError(e);
      this._finish(rec, 'error', invalid ? `the server answered with an invalid CreateTaskResult: ${firstZodIssue(e)}` : `tools/call failed: ${errorMessage(e)}`);
      return rec.key;
    }
    // Re-key by the server's task id.
    this._records.delete(rec.key);
    this._onDidChange.fire({ key: rec.key, kind: 'removed' });
    rec.key = `${connection.id}/${created.task.taskId}`;
    rec.task = created.task;
    rec.phase = 'tracking';
    this._records.set(rec.key, rec);
    this._changed(rec, 'added');
    this._afterUpdate(rec);
    return rec.key;
  }

  /** Cancels a sent task (`tasks/cancel`) or aborts a plain call. A task already terminal is explained, not an error. */
  async cancel(key: string): Promise<SentTaskSnapshot> {
    const rec = this._require(key);
    if (rec.mode === 'plain') {
      rec.live?.controller.abort(new Error('cancelled by the user'));
      return toSnapshot(rec);
    }
    if (!rec.task || isTerminal(rec.task.status)) {
      rec.reason = `Already ${rec.task?.status ?? 'finished'}; nothing to cancel.`;
      this._changed(rec);
      return toSnapshot(rec);
    }
    const connection = this._options.connectionFor(rec.serverId);
    try {
      const task = await connection!.client.experimental.tasks.cancelTask(rec.task.taskId);
      this._applyTask(rec, task);
      // R-CANCEL-2: the answer is the cancelled Task; act on it now (stop polling, abort an
      // outstanding tasks/result) instead of waiting for the next poll to report it.
      this._afterUpdate(rec);
    } catch (e) {
      if (e instanceof McpError && e.code === ErrorCode.InvalidParams) {
        // R-CANCEL-1: the task ended before the cancel arrived; say so once and show its real state.
        rec.reason = `The server could not cancel it: ${e.message}`;
        await this._pollOnce(rec).catch(() => undefined);
        this._changed(rec);
        return toSnapshot(rec);
      }
      throw e;
    }
    return toSnapshot(rec);
  }

  /** Forgets a finished task (its result too). */
  remove(key: string): void {
    const rec = this._records.get(key);
    if (!rec) return;
    if (rec.phase === 'sending' || rec.phase === 'tracking') throw new Error(`Task ${key} is still running; cancel it first`);
    this._detach(rec);
    this._records.delete(key);
    this._onDidChange.fire({ key, kind: 'removed' });
    this._scheduleSave();
  }

  /** Removes every finished task. */
  clearFinished(): number {
    let n = 0;
    for (const rec of [...this._records.values()]) {
      if (rec.phase === 'done' || rec.phase === 'expired' || rec.phase === 'error') {
        this.remove(rec.key);
        n++;
      }
    }
    return n;
  }

  /**
   * The server (re)connected: resume tracking its paused tasks, fetch missing payloads and
   * merge its `tasks/list` (R-LIST) so tasks from elsewhere show up.
   */
  async onServerRunning(connection: McpConnection): Promise<void> {
    for (const rec of this._records.values()) {
      if (rec.serverId !== connection.id) continue;
      rec.serverName = connection.name;
      if (rec.phase === 'paused' || (rec.phase === 'tracking' && !rec.live)) {
        this._attach(rec, connection);
        rec.phase = 'tracking';
        rec.reason = undefined;
        this._changed(rec);
        void this._pollOnce(rec).catch(() => undefined);
      } else if (rec.phase === 'done' && rec.mode === 'task' && !rec.outcome && rec.task && (rec.task.status === 'completed' || rec.task.status === 'failed')) {
        this._attach(rec, connection);
        this._fetchResult(rec);
      }
    }
    await this.mergeServerList(connection).catch((e) => connection.log.warn(`tasks/list failed: ${errorMessage(e)}`));
  }

  /** The server disconnected: pause tracking its tasks until it is back. */
  onServerStopped(serverId: string, reason: string): void {
    for (const rec of this._records.values()) {
      if (rec.serverId !== serverId) continue;
      if (rec.phase === 'tracking' || rec.phase === 'sending') {
        this._detach(rec);
        if (rec.mode === 'plain') {
          rec.outcome ??= { kind: 'error', code: ErrorCode.ConnectionClosed, message: reason };
          this._finish(rec, 'error', reason);
        } else {
          rec.phase = 'paused';
          rec.reason = reason;
          this._changed(rec);
        }
      }
    }
  }

  /** Reads every page of the server's `tasks/list` and adds the tasks this window does not know. */
  async mergeServerList(connection: McpConnection): Promise<number> {
    if (!connection.serverCapabilities?.tasks?.list) return 0;
    let cursor: string | undefined;
    let added = 0;
    const seen = new Set<string>();
    for (let page = 0; page < 1000; page++) {
      const res = await connection.client.experimental.tasks.listTasks(cursor);
      for (const task of res.tasks) {
        const key = `${connection.id}/${task.taskId}`;
        const rec = this._records.get(key);
        if (rec) {
          if (!rec.live && rec.phase !== 'done') this._applyTask(rec, task);
          continue;
        }
        const listed: SentRecord = {
          key,
          serverId: connection.id,
          serverName: connection.name,
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
    return added;
  }

  dispose(): void {
    if (this._disposed) return;
    void this._saveNow();
    this._disposed = true;
    for (const rec of this._records.values()) this._detach(rec);
    for (const s of this._connectionSubs.values()) s.dispose();
    this._onDidChange.dispose();
  }

  // ---------------------------------------------------------------------------------------

  private _attach(rec: SentRecord, connection: McpConnection): NonNullable<SentRecord['live']> {
    this._detach(rec);
    const store = new DisposableStore();
    const controller = new AbortController();
    store.add({ dispose: () => controller.abort(new Error('stopped tracking')) });
    rec.live = { store, controller, failures: 0, networkFailures: 0, polling: 0, connection };
    this._watchConnection(connection);
    return rec.live;
  }

  private _detach(rec: SentRecord): void {
    const live = rec.live;
    if (!live) return;
    rec.live = undefined;
    if (live.timer) clearTimeout(live.timer);
    live.store.dispose();
    // R-PROGRESS-1 ends with tracking: drop the progress handler the SDK keeps for the task's
    // creating request (it only does so itself for tasks in its own store).
    if (rec.task) forgetTaskProgress(live.connection, rec.task.taskId);
  }

  /** One listener per connection for `notifications/tasks/status` (R-NOTIFY-2: an extra update, not a replacement for polling). */
  private _watchConnection(connection: McpConnection): void {
    if (this._connectionSubs.has(connection.id)) return;
    const store = new DisposableStore();
    this._connectionSubs.set(connection.id, store);
    store.add(
      connection.onDidReceiveNotification((msg) => {
        if (!('method' in msg) || msg.method !== 'notifications/tasks/status') return;
        const parsed = TaskStatusNotificationSchema.safeParse(msg);
        if (!parsed.success) return;
        const { _meta: _ignored, ...task } = parsed.data.params;
        const rec = this._records.get(`${connection.id}/${task.taskId}`);
        if (rec?.live && rec.task && !isTerminal(rec.task.status)) {
          this._applyTask(rec, task as Task);
          this._afterUpdate(rec, /* fromNotification */ true);
        }
      }),
    );
  }

  private _applyTask(rec: SentRecord, task: Task): void {
    if (rec.task && isTerminal(rec.task.status) && !isTerminal(task.status)) return; // never move back
    rec.task = { ...task };
    this._changed(rec);
  }

  /** Decides what to do after the task changed: fetch, answer input, or poll again. */
  private _afterUpdate(rec: SentRecord, fromNotification = false): void {
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
        if (!live.resultCall) this._fetchResult(rec);
        break;
      case 'completed':
      case 'failed':
        if (live.timer) clearTimeout(live.timer);
        live.timer = undefined;
        if (!live.resultCall) this._fetchResult(rec);
        return;
      case 'cancelled':
        this._detach(rec);
        this._finish(rec, 'done');
        return;
      case 'working':
        break;
    }
    // A notification neither postpones a due poll nor starts one while a poll is in flight (its
    // answer schedules the next): one tasks/get at a time, at the pollInterval (R-GET-1).
    if (!fromNotification || (!live.timer && live.polling === 0)) this._schedulePoll(rec);
  }

  private _schedulePoll(rec: SentRecord, atLeastMs = 0): void {
    const live = rec.live;
    if (!live || !rec.task) return;
    if (live.timer) clearTimeout(live.timer);
    // R-GET-1: honour the *latest* pollInterval.
    const interval = Math.min(
      Math.max(rec.task.pollInterval ?? this._options.defaultPollIntervalMs ?? 1000, this._options.minPollIntervalMs ?? 100, atLeastMs),
      MAX_TIMER_DELAY_MS,
    );
    live.timer = setTimeout(() => {
      live.timer = undefined;
      void this._pollOnce(rec).catch(() => undefined);
    }, interval);
  }

  private async _pollOnce(rec: SentRecord): Promise<void> {
    const live = rec.live;
    if (!live || !rec.task) return;
    rec.polls++;
    let task: Task;
    live.polling++;
    try {
      const taskId = rec.task.taskId;
      task = await linkedRequest(live.controller.signal, (signal) => live.connection.client.experimental.tasks.getTask(taskId, { signal }));
    } catch (e) {
      live.polling--;
      if (rec.live !== live) return;
      if (e instanceof McpError && e.code === ErrorCode.InvalidParams) {
        this._detach(rec);
        this._finish(rec, 'expired', `The server no longer knows this task: ${e.message}`);
        return;
      }
      if ((e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || live.connection.state.kind !== 'running') {
        this.onServerStopped(rec.serverId, `"${rec.serverName}" disconnected`);
        return;
      }
      if (isNetworkError(e)) {
        // Not the task's fault: the connection notices a server that is gone (and pauses us
        // through onServerStopped); until then, ask again with a growing delay.
        live.networkFailures++;
        this._schedulePoll(rec, Math.min(500 * 2 ** live.networkFailures, 30_000));
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

  /** Fetches `tasks/result` once per record (R-RESULT-1/2/4): the result, or the JSON-RPC error. */
  private _fetchResult(rec: SentRecord): void {
    const live = rec.live;
    if (!live || !rec.task || live.resultCall) return;
    const taskId = rec.task.taskId;
    live.resultCall = (async () => {
      let outcome: TaskOutcome;
      try {
        const result: CallToolResult = await linkedRequest(live.controller.signal, (signal) =>
          live.connection.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { signal, timeout: MAX_TIMER_DELAY_MS }),
        );
        outcome = { kind: 'result', result };
      } catch (e) {
        if (rec.live !== live) return;
        if ((e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || live.connection.state.kind !== 'running') {
          this.onServerStopped(rec.serverId, `"${rec.serverName}" disconnected`);
          return;
        }
        if (isNetworkError(e)) {
          // The payload was not lost, only the request: polling goes on and asks again when due.
          live.resultCall = undefined;
          return;
        }
        outcome = errorOutcome(e);
      }
      if (rec.live !== live) return;
      rec.resultFetches++;
      rec.outcome = outcome;
      // tasks/result only answers once the task is terminal; make sure we show the final status.
      if (!isTerminal(rec.task!.status)) await this._pollOnceForFinal(rec, live);
      this._detach(rec);
      this._finish(rec, 'done');
    })();
  }

  private async _pollOnceForFinal(rec: SentRecord, live: NonNullable<SentRecord['live']>): Promise<void> {
    try {
      rec.polls++;
      const taskId = rec.task!.taskId;
      const task = await linkedRequest(live.controller.signal, (signal) => live.connection.client.experimental.tasks.getTask(taskId, { signal }));
      this._applyTask(rec, task);
    } catch {
      /* the payload is what matters; the status stays as last seen */
    }
  }

  private _finish(rec: SentRecord, phase: SentTaskPhase, reason?: string): void {
    rec.phase = phase;
    if (reason !== undefined) rec.reason = reason;
    if (rec.live) this._detach(rec);
    this._changed(rec);
  }

  private _changed(rec: SentRecord, kind: SentTaskChange['kind'] = 'updated'): void {
    this._onDidChange.fire({ key: rec.key, kind });
    this._scheduleSave();
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
    const parsed = persistedSchema.safeParse(storage.load() ?? { version: 1, tasks: [] });
    if (!parsed.success) return; // corrupt or from another version: start empty rather than fail
    for (const t of parsed.data.tasks) {
      const rec: SentRecord = { ...t, task: t.task as Task | undefined, outcome: t.outcome as TaskOutcome | undefined };
      if (rec.phase === 'tracking' || rec.phase === 'sending') {
        if (rec.mode === 'plain' || rec.phase === 'sending') {
          rec.phase = 'error';
          rec.reason = 'The window was reloaded while the call was in flight; its answer was lost.';
        } else {
          rec.phase = 'paused';
          rec.reason = 'Waiting for the server to connect after a reload';
        }
      }
      this._records.set(rec.key, rec);
    }
  }

  private _scheduleSave(): void {
    if (!this._options.storage || this._saveScheduled || this._disposed) return;
    this._saveScheduled = true;
    setTimeout(() => {
      this._saveScheduled = false;
      this._saveNow();
    }, 250).unref?.();
  }

  private _saveNow(): Promise<void> {
    const storage = this._options.storage;
    if (!storage || this._disposed) return Promise.resolve();
    const tasks = [...this._records.values()].map((r) => {
      const { live: _live, ...plain } = r;
      return plain;
    });
    try {
      return Promise.resolve(storage.save({ version: 1, tasks })).then(
        () => undefined,
        () => undefined,
      );
    } catch {
      /* storage failures must not break tracking */
      return Promise.resolve();
    }
  }

  /** Writes pending changes now (e.g. before deactivation); resolves when stored. */
  flush(): Promise<void> {
    return this._saveNow();
  }
}

/**
 * Runs one request with its own AbortSignal, linked to `parent` only while the request is
 * pending. The SDK never removes the abort listener it adds to a request's signal, so sharing a
 * record's long-lived signal across its requests sent `notifications/cancelled` for every request
 * already answered (the creating tools/call, each tasks/get, tasks/result) when tracking ended,
 * and piled up listeners (MaxListenersExceededWarning after 10 polls).
 */
function linkedRequest<T>(parent: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (parent.aborted) return request(AbortSignal.abort(parent.reason));
  const child = new AbortController();
  const onAbort = () => child.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return request(child.signal).finally(() => parent.removeEventListener('abort', onAbort));
}

/** The SDK's own cleanup for a finished task's progress handler (`Protocol._cleanupTaskProgressHandler`, private). */
function forgetTaskProgress(connection: McpConnection, taskId: string): void {
  if (connection.state.kind !== 'running') return;
  const client = connection.client as unknown as { _cleanupTaskProgressHandler?: (taskId: string) => void };
  client._cleanupTaskProgressHandler?.(taskId);
}

function toSnapshot(r: SentRecord): SentTaskSnapshot {
  return {
    key: r.key,
    serverId: r.serverId,
    serverName: r.serverName,
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
    polls: r.polls,
    resultFetches: r.resultFetches,
  };
}

function summarize(args: Record<string, unknown>): string {
  let s: string;
  try {
    s = JSON.stringify(args);
  } catch {
    s = '(arguments)';
  }
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/** A schema validation failure (a malformed answer). The SDK parses with zod v4, whose error is named `$ZodError`. */
function isZodError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'ZodError' || e.name === '$ZodError') && Array.isArray((e as { issues?: unknown }).issues);
}

/** A failure to reach the server (not an answer from it). */
function isNetworkError(e: unknown): boolean {
  if (e instanceof McpError) return false;
  const code = (e as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (e as { code?: unknown })?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|UND_ERR_\w+)$/.test(code)) return true;
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Not connected|terminated/i.test(errorMessage(e));
}

function firstZodIssue(e: unknown): string {
  const issues = (e as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
  const i = issues?.[0];
  return i ? `${i.path.join('.') || '(root)'}: ${i.message}` : errorMessage(e);
}
