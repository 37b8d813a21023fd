/**
 * Push for sent tasks on a 2026-07-28 session whose server declares the Tasks extension: one
 * `subscriptions/listen` stream with `notifications: { taskIds }` for the tasks tracked through
 * the connection (specification/draft/tasks.md §Task Status Notifications), so a task's end (its
 * result inline) reaches the tracker as the server sends it. The `notifications/tasks` it carries
 * arrive like any other notification (the connection's `onDidReceiveNotification`).
 *
 * Push comes first, polling stays: the tracker keeps polling at the task's `pollInterval` (the
 * spec's fallback), so a server that refuses the stream, drops it or never sends anything loses
 * nothing. When the set of tasks changes, a new stream replaces the old one once acknowledged (no
 * gap); changes within one turn make one stream.
 */
import type { McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import { errorMessage, ErrorCode, ProtocolError } from '../../base/errors.js';
import { Disposable } from '../../base/lifecycle.js';
import type { ServerLog } from '../../base/log.js';
import type { HostClient } from '../../connection/hostClient.js';

/** Delay before opening the stream again after the server dropped it (doubling, at most {@link MAX_REOPEN_MS}). */
const FIRST_REOPEN_MS = 1_000;
const MAX_REOPEN_MS = 60_000;
/** The Tasks extension's Missing Required Client Capability, and a server without the method. */
const REFUSALS: ReadonlySet<number> = new Set([ErrorCode.MethodNotFound, -32_021]);

export class TaskPush extends Disposable {
  private readonly _watched = new Set<string>();
  private _stream?: { readonly ids: ReadonlySet<string>; readonly subscription: McpSubscription };
  private _scheduled = false;
  private _refreshing = false;
  private _refused = false;
  private _reopenMs = FIRST_REOPEN_MS;
  private _reopenTimer?: NodeJS.Timeout;

  constructor(
    private readonly _client: HostClient,
    private readonly _log: ServerLog,
  ) {
    super();
  }

  /** Whether the server refused the stream (polling alone, from then on). */
  get refused(): boolean {
    return this._refused;
  }

  /** The task ids the open stream covers (for tests and the log). */
  get streaming(): ReadonlySet<string> {
    return this._stream?.ids ?? new Set();
  }

  watch(taskId: string): void {
    if (this._refused || this._isDisposed || this._watched.has(taskId)) return;
    this._watched.add(taskId);
    this._schedule();
  }

  unwatch(taskId: string): void {
    if (this._watched.delete(taskId)) this._schedule();
  }

  /** Closes the stream; nothing is opened again. */
  override dispose(): void {
    if (this._isDisposed) return;
    super.dispose();
    this._watched.clear();
    if (this._reopenTimer) clearTimeout(this._reopenTimer);
    const stream = this._stream;
    this._stream = undefined;
    void stream?.subscription.close().catch(() => undefined);
  }

  private _schedule(): void {
    if (this._scheduled || this._isDisposed) return;
    this._scheduled = true;
    queueMicrotask(() => {
      this._scheduled = false;
      void this._refresh();
    });
  }

  private async _refresh(): Promise<void> {
    if (this._refreshing || this._isDisposed || this._refused) return;
    this._refreshing = true;
    try {
      const ids = new Set(this._watched);
      const old = this._stream;
      if (old && sameSet(old.ids, ids)) return;
      if (ids.size === 0) {
        this._stream = undefined;
        await old?.subscription.close();
        return;
      }
      let subscription: McpSubscription;
      try {
        // The extension's own filter field; the SDK sends the filter as it is given.
        subscription = await this._client.listen({ taskIds: [...ids] } as SubscriptionFilter);
      } catch (e) {
        if (e instanceof ProtocolError && REFUSALS.has(e.code)) {
          this._refused = true;
          this._log.info(`the server does not push task status (subscriptions/listen: ${errorMessage(e)}); its tasks are polled`);
        } else {
          this._log.warn(`could not open the task status stream: ${errorMessage(e)}; its tasks are polled, trying again in ${this._reopenMs} ms`);
          this._reopenLater();
        }
        return;
      }
      if (this._isDisposed) {
        void subscription.close().catch(() => undefined);
        return;
      }
      this._stream = { ids, subscription };
      const openedAt = Date.now();
      void subscription.closed.then((cause) => {
        if (this._stream?.subscription !== subscription || this._isDisposed) return;
        this._stream = undefined;
        if (cause === 'local') return;
        // A stream that lasted starts the delays over; one dropped at once keeps them growing.
        if (Date.now() - openedAt >= MAX_REOPEN_MS) this._reopenMs = FIRST_REOPEN_MS;
        this._log.info(`the task status stream ended (${cause === 'graceful' ? 'the server closed it' : 'it dropped'}); opening it again in ${this._reopenMs} ms`);
        this._reopenLater();
      });
      await old?.subscription.close();
    } finally {
      this._refreshing = false;
      // Changes made while this one ran.
      if (!this._isDisposed && !this._refused && !sameSet(this._stream?.ids ?? new Set(), this._watched) && !this._reopenTimer) this._schedule();
    }
  }

  private _reopenLater(): void {
    if (this._reopenTimer || this._isDisposed) return;
    const delay = this._reopenMs;
    this._reopenMs = Math.min(this._reopenMs * 2, MAX_REOPEN_MS);
    this._reopenTimer = setTimeout(() => {
      this._reopenTimer = undefined;
      this._schedule();
    }, delay);
    this._reopenTimer.unref?.();
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
