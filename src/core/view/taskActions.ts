/**
 * What the user does to a row of the Tasks view (cancel, remove, retrieve its result), whichever
 * side it is on: the UI names the action and the row; this finds who carries it out (the
 * requestor tracker for a sent call, the server's received tasks (receiver/serverTasks.ts) for a received task, the open-request
 * list for a plain request) and says how it went as a typed outcome the UI puts in words.
 */
import type { TaskLedger } from '../receiver/ledger.js';
import type { SentTaskSnapshot, TaskTracker } from '../requestor/tracker.js';
import { isFinished, type ReceivedTaskViewItem, type RequestViewItem, type TaskViewItem } from './taskViewItem.js';

/** How a cancel went: done, the row had already finished, or the server did not cancel it (its reason). */
export type CancelOutcome = { readonly kind: 'cancelled' } | { readonly kind: 'already-finished' } | { readonly kind: 'not-cancelled'; readonly reason: string };

/** How a retrieve went: the row has its result (or never had one to fetch), or it is still missing (why). */
export type RetrieveOutcome = { readonly kind: 'ready' } | { readonly kind: 'missing'; readonly reason: string };

/** Ends a plain received request (not a task): the UI's prompt of it, or its place in the open-request list. */
export type CancelPlainRequest = (item: TaskViewItem, reason: string) => boolean;

export class TaskActions {
  constructor(
    private readonly _tracker: TaskTracker,
    private readonly _ledger: TaskLedger,
    private readonly _cancelPlainRequest: CancelPlainRequest,
  ) {}

  /** Cancels the row's task or request, for `reason` (a received one's server is told it). */
  async cancel(item: TaskViewItem, reason: string): Promise<CancelOutcome> {
    switch (item.kind) {
      case 'sent': {
        const after = await this._tracker.cancel(item.key);
        return after.reason && after.task?.status !== 'cancelled' ? { kind: 'not-cancelled', reason: after.reason } : { kind: 'cancelled' };
      }
      case 'received':
      case 'request':
        return this.cancelReceived(item, reason) ? { kind: 'cancelled' } : { kind: 'already-finished' };
    }
  }

  /** Cancels a received task or plain request; false when it had already ended (or went away meanwhile). */
  cancelReceived(item: ReceivedTaskViewItem | RequestViewItem, reason: string): boolean {
    switch (item.kind) {
      case 'request':
        return this._cancelPlainRequest(item, reason);
      case 'received':
        try {
          return this._ledger.tasksOf(item.serverId)?.cancel(item.taskId, reason) ?? false;
        } catch {
          return false; // gone meanwhile: nothing left to cancel
        }
    }
  }

  /** Forgets a finished row (a sent call's result with it). A plain request is never kept once it ends: nothing to forget. */
  remove(item: TaskViewItem): void {
    switch (item.kind) {
      case 'sent':
        this._tracker.remove(item.key);
        return;
      case 'received':
        this._ledger.tasksOf(item.serverId)?.remove(item.taskId);
        return;
      case 'request':
        return;
    }
  }

  /** Forgets every finished row of both sides: the tracker's own, and the received tasks among `items` (the view's rows). */
  clearFinished(items: readonly TaskViewItem[]): void {
    this._tracker.clearFinished();
    for (const i of items) if (i.kind === 'received' && isFinished(i.state)) this._ledger.tasksOf(i.serverId)?.remove(i.taskId);
  }

  /**
   * Before the row's result is shown: a task found through `tasks/list` is followed from now on
   * (polled, its result fetched), and a finished call whose payload never arrived (a network
   * error, or too large to keep across a reload) asks for it again.
   */
  async retrieve(item: TaskViewItem): Promise<RetrieveOutcome> {
    if (item.kind !== 'sent') return { kind: 'ready' }; // the ledger holds a received task's result
    this._tracker.follow(item.key);
    if (item.outcome || (item.state !== 'completed' && item.state !== 'failed')) return { kind: 'ready' };
    const after: SentTaskSnapshot = await this._tracker.retrieve(item.key);
    return !after.outcome && after.reason ? { kind: 'missing', reason: after.reason } : { kind: 'ready' };
  }
}
