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
 *   for that call. With two or more calls in flight it stays unlinked (shown under Received).
 *
 * When a sent call ends (completed, failed, cancelled, expired, given up), the received requests
 * still open under it are orphans: nothing waits for their answer. They are cancelled here, so
 * no prompt keeps waiting for the user and the status bar never counts them.
 */
import { Emitter, type Event, type IDisposable } from '../base/events.js';
import { isTerminal } from '../base/taskState.js';
import type { ReceivedTaskSnapshot, TaskLedger } from '../receiver/ledger.js';
import type { SentTaskSnapshot, TaskTracker } from '../requestor/tracker.js';

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

/** Tracks which sent call (tracker key) each received task belongs to. */
export class CausalLinks implements IDisposable {
  /** Received task (`<scopeId>/<taskId>`) → tracker key of the plain call in flight when it arrived. */
  private readonly _inferred = new Map<string, string>();
  /**
   * Sent calls already seen ended (their open requests settled then): a later change of an ended
   * call (a note, a retrieved result) does not walk every received task again (bench/ row 7:
   * 10,000 received tasks made each such change cost milliseconds).
   */
  private readonly _ended = new Set<string>();
  private readonly _subs: IDisposable[];
  private readonly _onDidSettle = new Emitter<{ readonly received: ReceivedTaskSnapshot; readonly parent: SentTaskSnapshot }>();
  /** Fires when an orphaned received task was cancelled because its sent call ended. */
  readonly onDidSettle: Event<{ readonly received: ReceivedTaskSnapshot; readonly parent: SentTaskSnapshot }> = this._onDidSettle.event;

  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _tracker: TaskTracker,
  ) {
    // Calls that ended before this window (loaded from storage) have no requests in this ledger.
    for (const s of _tracker.snapshotsWhere(isSentEnded)) this._ended.add(s.key);
    // Subscribed before anyone reads the new task: the link is made the moment it arrives.
    this._subs = [
      _ledger.onDidChange((c) => {
        const id = `${c.scopeId}/${c.taskId}`;
        if (c.kind === 'created') this._received(c.scopeId, c.taskId);
        else if (c.kind === 'removed') this._inferred.delete(id);
      }),
      _tracker.onDidChange((c) => {
        if (c.kind !== 'removed') this._sentChanged(c.key);
        else this._ended.delete(c.key);
      }),
    ];
  }

  /** The tracker key of the sent call `r` belongs to, if we know it (the call may since have been forgotten). */
  parentKeyOf(r: Pick<ReceivedTaskSnapshot, 'scopeId' | 'task' | 'info'>): string | undefined {
    if (r.info.relatedTaskId !== undefined) return `${r.scopeId}/${r.info.relatedTaskId}`;
    return this._inferred.get(`${r.scopeId}/${r.task.taskId}`);
  }

  private _disposed = false;

  dispose(): void {
    this._disposed = true;
    for (const s of this._subs) s.dispose();
    this._onDidSettle.dispose();
  }

  private _received(scopeId: string, taskId: string): void {
    const r = this._ledger.getScope(scopeId)?.get(taskId);
    if (!r) return;
    const named = r.info.relatedTaskId;
    if (named !== undefined) {
      // A request for a task that has ended already is an orphan from the start.
      const parent = this._tracker.get(`${scopeId}/${named}`);
      // Once its work has started (the ledger fires `created` before the work runs), so the
      // cancel aborts that work rather than leaving it to start on a cancelled task.
      if (parent && isSentEnded(parent)) setImmediate(() => this._settleIfOpen(scopeId, taskId, parent));
      return;
    }
    // Not snapshot(): copying every stored sent task for each received request made 10,000
    // received requests with 10,000 stored sent tasks take minutes (bench/ row 7, issue 15).
    const inFlight = this._tracker.snapshotsWhere((s) => s.serverId === scopeId && isSentInFlight(s));
    const only = inFlight.length === 1 ? inFlight[0]! : undefined;
    if (only?.mode === 'plain') this._inferred.set(`${scopeId}/${taskId}`, only.key);
  }

  private _sentChanged(key: string): void {
    const parent = this._tracker.get(key);
    if (!parent || !isSentEnded(parent)) {
      this._ended.delete(key);
      return;
    }
    if (this._ended.has(key)) return;
    this._ended.add(key);
    const scope = this._ledger.getScope(parent.serverId);
    if (!scope) return;
    for (const r of scope.snapshot()) {
      if (!isTerminal(r.task.status) && this.parentKeyOf(r) === key) this._settle(r, parent);
    }
  }

  private _settleIfOpen(scopeId: string, taskId: string, parent: SentTaskSnapshot): void {
    if (this._disposed) return;
    const r = this._ledger.getScope(scopeId)?.get(taskId);
    if (r && !isTerminal(r.task.status)) this._settle(r, parent);
  }

  private _settle(r: ReceivedTaskSnapshot, parent: SentTaskSnapshot): void {
    const scope = this._ledger.getScope(r.scopeId);
    if (!scope) return;
    const how = parent.cancelledByUser || parent.task?.status === 'cancelled' ? 'was cancelled' : 'ended';
    try {
      if (!scope.cancel(r.task.taskId, `The tool call "${parent.toolName}" it was asked for ${how}; nothing waits for this answer any more`)) return;
    } catch {
      return; // gone meanwhile
    }
    this._onDidSettle.fire({ received: r, parent });
  }
}
