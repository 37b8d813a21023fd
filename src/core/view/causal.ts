/**
 * The causal links between the two directions: which of our sent tool calls a received request
 * (a task a server created on this host) belongs to, and what happens to such a request when
 * that call ends.
 *
 * A received request belongs to a sent call when
 * - it names the server's task (related-task metadata, R-META-1; a request delivered through
 *   the task's `tasks/result` stream carries it too, R-RESULT-4; a wire that hands input
 *   requests over with the task sets the same field, `ReceivedTaskInfo.relatedTaskId`), and we
 *   sent that task; or
 * - it names none, and exactly one call to that server was in flight when it arrived, and that
 *   call is a plain (non-task) `tools/call`: the 2025-11-25 wire does not say which request a
 *   server request serves, but a server that asks something while one plain call runs asks it
 *   for that call.
 * Which of these it is is decided once, when it arrives ({@link CallOwnerResolution}). With two
 * or more calls in flight (or one task) the owner cannot be told: that is an outcome of its own,
 * said in the server's log, and the request stays unlinked (shown under Received) — never a guess.
 *
 * The same holds for a plain request (not a task, `openRequests.ts`): it belongs to the call it
 * names (related-task metadata, or the sent task whose `inputRequests` carried it), or to the
 * only plain call in flight when it arrived.
 *
 * When a sent call ends (completed, failed, cancelled, expired, given up) or is forgotten, the
 * requests still open under it are orphans: nothing waits for their answer. Received tasks are
 * cancelled and plain requests withdrawn here, however the call ended, so no prompt keeps
 * waiting for the user and nothing counts them as waiting.
 */
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import { isTerminal } from '../base/taskState.js';
import type { ReceivedTaskSnapshot, TaskLedger } from '../receiver/ledger.js';
import type { SentTaskSnapshot, TaskTracker } from '../requestor/tracker.js';
import type { OpenRequestSnapshot, OpenRequests } from './openRequests.js';
import { receivedRowId } from './rowIds.js';

/** Whether a sent call is still under way (it may still cause requests, and wait on them). */
export function isSentInFlight(s: Pick<SentTaskSnapshot, 'phase' | 'task'>): boolean {
  if (s.phase !== 'sending' && s.phase !== 'tracking') return false;
  return !s.task || !isTerminal(s.task.status);
}

/** Whether a sent call has ended for good (its open requests are orphans). */
export function isSentEnded(s: Pick<SentTaskSnapshot, 'phase' | 'task'>): boolean {
  switch (s.phase) {
    case 'done':
    case 'expired':
    case 'error':
      return true;
    case 'sending':
    case 'tracking':
      return !!s.task && isTerminal(s.task.status);
    case 'queued':
    case 'paused':
    case 'orphaned':
      return false;
  }
}

/** Which sent call a received request belongs to, decided when it arrives. */
export type CallOwnerResolution =
  /**
   * It names the call (related-task metadata, or the sent task whose `inputRequests` carried it);
   * `key` is the call's tracker key when the tracker knew it by then (not yet: the request came
   * before the server named the call, or it names a task not sent from here).
   */
  | { readonly kind: 'named'; readonly key: string | undefined }
  /** It names none; the only call in flight to its server was this plain one (the 2025-11-25 wire says no more). */
  | { readonly kind: 'sole-plain-call'; readonly key: string }
  /** It names none and no call was in flight: a request of the server's own. */
  | { readonly kind: 'none' }
  /** It names none and `inFlight` calls were in flight (or one task): which one cannot be told. */
  | { readonly kind: 'ambiguous'; readonly inFlight: number };

/** Tracks which sent call (tracker key) each received task belongs to. */
export class CausalLinks extends Disposable {
  /** Received task (`<serverId>/<taskId>`) → tracker key of the plain call in flight when it arrived. */
  private readonly _inferred = new Map<string, string>();
  /** Open plain request (view id) → tracker key of the call it belongs to. */
  private readonly _requestParents = new Map<string, string>();
  /**
   * Open plain request (view id) → the server's task it names, while the tracker does not know a
   * call by that id yet (it came before the CreateTaskResult): its parent once the call is named.
   */
  private readonly _requestNamed = new Map<string, { readonly serverId: string; readonly taskId: string }>();
  /** How the owner of each received task (`received:<serverId>/<taskId>`) and open request (`request:<id>`) was decided, while it is kept. */
  private readonly _resolutions = new Map<string, CallOwnerResolution>();
  /**
   * Sent calls already seen ended (their open requests settled then): a later change of an ended
   * call (a note, a retrieved result) does not walk every received task again (bench: surface tree redraws;
   * 10,000 received tasks made each such change cost milliseconds).
   */
  private readonly _ended = new Set<string>();
  private readonly _onDidSettle = this._register(new Emitter<{ readonly received: ReceivedTaskSnapshot; readonly parent: SentTaskSnapshot }>());
  /** Fires when an orphaned received task was cancelled because its sent call ended. */
  readonly onDidSettle: Event<{ readonly received: ReceivedTaskSnapshot; readonly parent: SentTaskSnapshot }> = this._onDidSettle.event;
  private readonly _onDidWithdraw = this._register(new Emitter<{ readonly request: OpenRequestSnapshot; readonly parent?: SentTaskSnapshot }>());
  /** Fires when an open plain request was withdrawn because its sent call ended or was forgotten. */
  readonly onDidWithdraw: Event<{ readonly request: OpenRequestSnapshot; readonly parent?: SentTaskSnapshot }> = this._onDidWithdraw.event;

  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _tracker: TaskTracker,
    private readonly _requests?: OpenRequests,
  ) {
    super();
    // Calls that ended before this window (read from storage) have no requests in this ledger. Taken when
    // the tracker reads them (after activation, or at their first need), so activation reads none.
    this._register(
      _tracker.whenLoaded(() => {
        for (const s of _tracker.snapshotsWhere(isSentEnded)) this._ended.add(s.key);
      }),
    );
    // Subscribed before anyone reads the new task: the link is made the moment it arrives.
    this._register(
      _ledger.onDidChange((c) => {
        const id = `${c.serverId}/${c.taskId}`;
        if (c.kind === 'created') this._received(c.serverId, c.taskId);
        else if (c.kind === 'removed') {
          this._inferred.delete(id);
          this._resolutions.delete(receivedRowId(c.serverId, c.taskId));
        }
      }),
    );
    this._register(
      _tracker.onDidChange((c) => {
        if (c.kind !== 'removed') this._sentChanged(c.key);
        else this._sentRemoved(c.key);
      }),
    );
    if (_requests) {
      this._register(
        _requests.onDidChange((c) => {
          if (c.kind === 'added') this._requestOpened(c.id);
          else if (c.kind === 'removed') {
            this._requestParents.delete(c.id);
            this._requestNamed.delete(c.id);
            this._resolutions.delete(`request:${c.id}`);
          }
        }),
      );
    }
  }

  /** The tracker key of the sent call an open plain request belongs to, if any. */
  requestParentKey(id: string): string | undefined {
    return this._requestParents.get(id);
  }

  /** The tracker key of the sent call `r` belongs to, if we know it (a call named by its task id: found when read, while the tracker keeps it). */
  parentKeyOf(r: Pick<ReceivedTaskSnapshot, 'serverId' | 'task' | 'info'>): string | undefined {
    if (r.info.relatedTaskId !== undefined) return this._tracker.keyOfTask(r.serverId, r.info.relatedTaskId);
    return this._inferred.get(`${r.serverId}/${r.task.taskId}`);
  }

  /** How the owner of a received task (`received`, by `<serverId>/<taskId>`) or open request (`request`, by its id) was decided. */
  ownerOf(kind: 'received' | 'request', id: string): CallOwnerResolution | undefined {
    return this._resolutions.get(`${kind}:${id}`);
  }

  private _received(serverId: string, taskId: string): void {
    const r = this._ledger.tasksOf(serverId)?.get(taskId);
    if (!r) return;
    const named = r.info.relatedTaskId;
    if (named !== undefined) {
      // Its call is found by the server's task id when it is read (parentKeyOf): it may be named after this request came.
      const key = this._tracker.keyOfTask(serverId, named);
      this._resolutions.set(receivedRowId(serverId, taskId), { kind: 'named', key });
      // A request for a task that has ended already is an orphan from the start.
      const parent = key === undefined ? undefined : this._tracker.get(key);
      // Once its work has started (the ledger fires `created` before the work runs), so the
      // cancel aborts that work rather than leaving it to start on a cancelled task.
      if (parent && isSentEnded(parent)) setImmediate(() => this._settleIfOpen(serverId, taskId, parent));
      return;
    }
    const owner = this._resolve(serverId, `${r.info.method} task ${taskId}`);
    this._resolutions.set(receivedRowId(serverId, taskId), owner);
    if (owner.kind === 'sole-plain-call') this._inferred.set(`${serverId}/${taskId}`, owner.key);
  }

  /**
   * The owner of a request that names no call: the only call in flight to its server when that
   * call is plain; none when nothing is in flight; else ambiguous, said in the server's log.
   */
  private _resolve(serverId: string, what: string): CallOwnerResolution {
    // Not snapshot(): copying every stored sent task for each received request made 10,000
    // received requests with 10,000 stored sent tasks take minutes (bench: surface tree redraws).
    const inFlight = this._tracker.snapshotsWhere((s) => s.serverId === serverId && isSentInFlight(s));
    if (inFlight.length === 0) return { kind: 'none' };
    const only = inFlight.length === 1 ? inFlight[0]! : undefined;
    if (only?.mode === 'plain') return { kind: 'sole-plain-call', key: only.key };
    this._tracker
      .serverLog(serverId)
      ?.info(`${what} names no call of this host, and ${inFlight.length === 1 ? 'the one call in flight is a task' : `${inFlight.length} calls were in flight`}: which one it serves cannot be told, so it is shown on its own`);
    return { kind: 'ambiguous', inFlight: inFlight.length };
  }

  private _requestOpened(id: string): void {
    const r = this._requests?.get(id);
    if (!r) return;
    const names = r.sentTaskKey !== undefined || r.relatedTaskId !== undefined;
    const named = r.sentTaskKey ?? (r.relatedTaskId !== undefined ? this._tracker.keyOfTask(r.serverId, r.relatedTaskId) : undefined);
    const owner: CallOwnerResolution = names ? { kind: 'named', key: named } : this._resolve(r.serverId, `${r.method} request`);
    this._resolutions.set(`request:${id}`, owner);
    if (owner.kind !== 'named' && owner.kind !== 'sole-plain-call') return;
    const key = owner.key;
    if (key === undefined) {
      // Named before the server named the call (Streamable HTTP ordering): linked once it is (_sentChanged).
      this._requestNamed.set(id, { serverId: r.serverId, taskId: r.relatedTaskId! });
      return;
    }
    this._requestParents.set(id, key);
    // A request for a call that has ended already is withdrawn at once: nothing waits for it.
    const parent = this._tracker.get(key);
    if (parent && isSentEnded(parent)) this._withdraw(r, parent);
  }

  /** A sent call was forgotten: its open requests wait for nothing (once the current change is through). */
  private _sentRemoved(key: string): void {
    this._ended.delete(key);
    if (![...this._requestParents.values()].includes(key)) return;
    queueMicrotask(() => {
      if (this._isDisposed || this._tracker.get(key)) return;
      for (const [id, parentKey] of [...this._requestParents]) {
        if (parentKey !== key) continue;
        const r = this._requests?.get(id);
        if (r) this._withdraw(r, undefined);
      }
    });
  }

  private _withdraw(r: OpenRequestSnapshot, parent: SentTaskSnapshot | undefined): void {
    const reason = parent ? `The tool call "${parent.toolName}" it was asked for ${endedHow(parent)}; nothing waits for this answer any more` : 'The tool call it was asked for is gone; nothing waits for this answer any more';
    if (this._requests?.withdraw(r.id, reason)) this._onDidWithdraw.fire({ request: r, parent });
  }

  private _sentChanged(key: string): void {
    // A call the server has just named: the requests that named it before are its now.
    for (const [id, { serverId, taskId }] of this._requestNamed) {
      if (this._tracker.keyOfTask(serverId, taskId) !== key) continue;
      this._requestNamed.delete(id);
      this._requestParents.set(id, key);
    }
    const parent = this._tracker.get(key);
    if (!parent || !isSentEnded(parent)) {
      this._ended.delete(key);
      return;
    }
    if (this._ended.has(key)) return;
    this._ended.add(key);
    for (const [id, parentKey] of [...this._requestParents]) {
      if (parentKey !== key) continue;
      const r = this._requests?.get(id);
      if (r) this._withdraw(r, parent);
    }
    const tasks = this._ledger.tasksOf(parent.serverId);
    if (!tasks) return;
    for (const r of tasks.snapshot()) {
      if (!isTerminal(r.task.status) && this.parentKeyOf(r) === key) this._settle(r, parent);
    }
  }

  private _settleIfOpen(serverId: string, taskId: string, parent: SentTaskSnapshot): void {
    if (this._isDisposed) return;
    const r = this._ledger.tasksOf(serverId)?.get(taskId);
    if (r && !isTerminal(r.task.status)) this._settle(r, parent);
  }

  private _settle(r: ReceivedTaskSnapshot, parent: SentTaskSnapshot): void {
    const tasks = this._ledger.tasksOf(r.serverId);
    if (!tasks) return;
    try {
      if (!tasks.cancel(r.task.taskId, `The tool call "${parent.toolName}" it was asked for ${endedHow(parent)}; nothing waits for this answer any more`)) return;
    } catch {
      return; // gone meanwhile
    }
    this._onDidSettle.fire({ received: r, parent });
  }
}

/** How a sent call ended, in words for the request it leaves behind. */
function endedHow(parent: SentTaskSnapshot): string {
  return parent.cancelledByUser || parent.task?.status === 'cancelled' || parent.cancelledInQueue ? 'was cancelled' : 'ended';
}
