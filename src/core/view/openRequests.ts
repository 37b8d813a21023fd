/**
 * The requests a server sent this host that are not tasks (sampling or elicitation answered
 * directly, e.g. sent on a `tasks/result` stream while one of our tool tasks is `input_required`,
 * or inside a 2026-07-28 task's `inputRequests`), while they are open. A received *task* lives in
 * the ledger; these live only here, from the moment a responder takes them until it answers.
 *
 * They are part of the task view (nested under the call they belong to, see causal.ts), so the
 * tree, the view's badge, the status bar and "Respond…" all read the same list: a request is
 * "waiting for you" exactly while it is here and marked waiting, and is gone when it is answered,
 * withdrawn by its server, or withdrawn because the call it was asked for ended.
 */
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import type { ResponderContext } from '../receiver/wire/responders.js';
import { titleFor } from '../receiver/ledgerRecord.js';
import { receivedRowId, requestRowId } from './rowIds.js';

/** An open plain request, as the view reads it (a copy). */
export interface OpenRequestSnapshot {
  /** The view id: `request:<serverId>/<localId>`. */
  readonly id: string;
  /** A local id (`request-<n>`): plain requests have no task id. */
  readonly localId: string;
  readonly serverId: string;
  readonly serverName: string;
  readonly method: string;
  readonly title: string;
  readonly createdAt: number;
  /** The server's task it names (related-task metadata): one of our sent tasks. */
  readonly relatedTaskId?: string;
  /** The tracker key of the sent task whose `inputRequests` carried it (2026-07-28). */
  readonly sentTaskKey?: string;
  readonly waitingForUser: boolean;
  /** What the responder said it is doing (waiting for consent, generating…). */
  readonly statusMessage?: string;
}

export interface OpenRequestChange {
  readonly id: string;
  readonly kind: 'added' | 'updated' | 'removed';
}

interface OpenRecord {
  snapshot: OpenRequestSnapshot;
  readonly controller: AbortController;
}

/** A responder's context for a plain request, with the view id its prompt uses. */
export type OpenRequestContext = ResponderContext & { readonly viewId: string };

/** The view id of the request a responder context serves: a received task's, or an open plain request's. */
export function requestViewId(ctx: ResponderContext): string | undefined {
  if (ctx.taskId !== undefined) return receivedRowId(ctx.serverId, ctx.taskId);
  const id = (ctx as Partial<OpenRequestContext>).viewId;
  return typeof id === 'string' ? id : undefined;
}

/** The open plain requests of every server. */
export class OpenRequests extends Disposable {
  private readonly _open = new Map<string, OpenRecord>();
  private _next = 0;
  private readonly _onDidChange = this._register(new Emitter<OpenRequestChange>());
  /** Fires when a request opens, changes (waiting, status message) or ends. */
  readonly onDidChange: Event<OpenRequestChange> = this._onDidChange.event;

  constructor(private readonly _now: () => number = Date.now) {
    super();
  }

  get(id: string): OpenRequestSnapshot | undefined {
    return this._open.get(id)?.snapshot;
  }

  /** Every open request, oldest first. */
  snapshot(): OpenRequestSnapshot[] {
    return [...this._open.values()].map((r) => r.snapshot);
  }

  get size(): number {
    return this._open.size;
  }

  /**
   * Answers a request through `respond`. A task-augmented one (`ctx.taskId`) is the ledger's: it
   * passes through. A plain one is open here until `respond` settles; `respond` gets a context
   * whose signal is also aborted by {@link withdraw}, and whose `setWaitingForUser` is shown.
   */
  serve<R>(ctx: ResponderContext, method: string, params: unknown, respond: (ctx: ResponderContext) => Promise<R>): Promise<R> {
    if (ctx.taskId !== undefined) return respond(ctx);
    const localId = `request-${++this._next}`;
    const id = requestRowId(ctx.serverId, localId);
    const controller = new AbortController();
    const onAbort = () => controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const rec: OpenRecord = {
      controller,
      snapshot: {
        id,
        localId,
        serverId: ctx.serverId,
        serverName: ctx.serverName,
        method,
        title: titleFor(method, params),
        createdAt: this._now(),
        ...(ctx.relatedTaskId !== undefined ? { relatedTaskId: ctx.relatedTaskId } : {}),
        ...(ctx.sentTask ? { sentTaskKey: ctx.sentTask.key } : {}),
        waitingForUser: false,
      },
    };
    const served: OpenRequestContext = {
      ...ctx,
      viewId: id,
      signal: controller.signal,
      setWaitingForUser: (waiting, statusMessage) => {
        if (this._open.get(id) !== rec) return;
        rec.snapshot = { ...rec.snapshot, waitingForUser: waiting, statusMessage };
        this._onDidChange.fire({ id, kind: 'updated' });
      },
    };
    this._open.set(id, rec);
    const end = () => {
      ctx.signal.removeEventListener('abort', onAbort);
      if (this._open.get(id) !== rec) return;
      this._open.delete(id);
      this._onDidChange.fire({ id, kind: 'removed' });
    };
    let answer: Promise<R>;
    try {
      answer = respond(served);
    } catch (e) {
      end();
      return Promise.reject(e);
    }
    // Announced once the responder has started (it listens to its signal by now): a request
    // withdrawn at once (its call has ended already, causal.ts) reaches a responder that hears it.
    if (this._open.get(id) === rec) this._onDidChange.fire({ id, kind: 'added' });
    return answer.finally(end);
  }

  /**
   * Withdraws an open request: its responder's signal is aborted with `reason` (its prompt
   * closes), and it leaves the view when the responder has settled. False if it is not open.
   */
  withdraw(id: string, reason: string): boolean {
    const rec = this._open.get(id);
    if (!rec || rec.controller.signal.aborted) return false;
    rec.controller.abort(new Error(reason));
    return true;
  }

  /** Every open request is withdrawn (its prompt closes); none of them is announced as removed. */
  override dispose(): void {
    for (const r of this._open.values()) r.controller.abort(new Error('the window is closing'));
    this._open.clear();
    super.dispose();
  }
}
