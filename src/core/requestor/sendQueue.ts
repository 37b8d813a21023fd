/**
 * The send queue: with a per-server limit on tool calls in flight
 * (`mcpTasks.requestor.maxConcurrentTasksPerServer`), a call beyond it waits in phase `queued`
 * (a record the tree shows, never sent) and starts when a slot frees, in priority order (urgent
 * first, first in first out within a priority). A queued call can be cancelled without reaching
 * the server. The Tasks tree, "Run Tool…" and the extension API all go through
 * `TaskTracker.callTool`, so they share this queue.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import type { RequestorConnection } from '../connection/connection.js';
import type { SentTask } from './sentTask.js';
import type { SentTasks } from './sentTasks.js';
import { connectionOf } from './identity.js';
import { callModeFor, newCallRecord, startCall } from './sending.js';

/** Scheduling priority of a call (the SDK design notes' Low/Normal/High/Urgent). */
export type TaskPriority = 'low' | 'normal' | 'high' | 'urgent';

/** Every priority, lowest first. */
export const TASK_PRIORITIES: readonly TaskPriority[] = ['low', 'normal', 'high', 'urgent'];

function rank(p: TaskPriority): number {
  switch (p) {
    case 'low':
      return 0;
    case 'normal':
      return 1;
    case 'high':
      return 2;
    case 'urgent':
      return 3;
  }
}

/** One waiting call: its record (phase `queued`) and what is needed to send it. */
export interface QueuedCall {
  readonly sent: SentTask;
  readonly tool: Pick<Tool, 'name' | 'execution'>;
  readonly args: Record<string, unknown>;
  readonly priority: TaskPriority;
  readonly signal?: AbortSignal;
  /** Arrival order (FIFO within a priority). */
  readonly seq: number;
}

/**
 * Waiting calls of every server, ordered by priority then arrival. Bookkeeping, and the link from
 * each call's signal while it waits: cut when the call leaves the queue (sent or cancelled), so a
 * caller's long-lived signal keeps no call that left.
 */
export class SendQueue {
  private readonly _items: QueuedCall[] = [];
  private readonly _unlinks = new Map<QueuedCall, () => void>();
  private _seq = 0;

  get size(): number {
    return this._items.length;
  }

  /** Adds a waiting call; `onAbort` runs if its signal aborts while it waits. */
  add(item: Omit<QueuedCall, 'seq'>, onAbort?: () => void): QueuedCall {
    const q: QueuedCall = { ...item, seq: ++this._seq };
    this._items.push(q);
    const signal = item.signal;
    if (signal && onAbort) {
      signal.addEventListener('abort', onAbort, { once: true });
      this._unlinks.set(q, () => signal.removeEventListener('abort', onAbort));
    }
    return q;
  }

  /** Calls waiting for `serverId`, in the order they will start. */
  waitingFor(serverId: string): QueuedCall[] {
    return this._items.filter((q) => q.sent.record.serverId === serverId).sort(byTurn);
  }

  /** Server ids with waiting calls. */
  servers(): Set<string> {
    return new Set(this._items.map((q) => q.sent.record.serverId));
  }

  /** Takes the next call for `serverId` (highest priority, then oldest). */
  shift(serverId: string): QueuedCall | undefined {
    const next = this.waitingFor(serverId)[0];
    if (next) this._take(this._items.indexOf(next));
    return next;
  }

  /** Removes the call of `sent`; returns it, or undefined if it was not waiting. */
  remove(sent: SentTask): QueuedCall | undefined {
    const i = this._items.findIndex((q) => q.sent === sent);
    return i < 0 ? undefined : this._take(i);
  }

  /** Empties the queue (its tracker is disposed): every link to a caller's signal is cut. */
  clear(): void {
    this._items.length = 0;
    for (const unlink of this._unlinks.values()) unlink();
    this._unlinks.clear();
  }

  private _take(index: number): QueuedCall {
    const q = this._items.splice(index, 1)[0]!;
    const unlink = this._unlinks.get(q);
    if (unlink) {
      this._unlinks.delete(q);
      unlink();
    }
    return q;
  }

  /** The call of `sent`, if it waits. */
  find(sent: SentTask): QueuedCall | undefined {
    return this._items.find((q) => q.sent === sent);
  }
}

function byTurn(a: QueuedCall, b: QueuedCall): number {
  return rank(b.priority) - rank(a.priority) || a.seq - b.seq;
}

/** The limit for a server (0: none). */
function limitOf(t: SentTasks): number {
  const n = t.options.maxConcurrentPerServer?.() ?? 0;
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** Calls of this window in flight on `serverId` (sent and not yet finished). */
export function inFlight(t: SentTasks, serverId: string): number {
  let n = 0;
  for (const { record: r } of t.all()) if (r.serverId === serverId && r.origin === 'local' && (r.phase === 'sending' || r.phase === 'tracking')) n++;
  return n;
}

/**
 * Calls a tool through the queue: sent at once while the server is under its limit and nothing
 * waits before it; else added as a `queued` record. Resolves with the local key (once under way
 * when sent at once, like `callTool`; at once when queued).
 */
export function queueOrCall(t: SentTasks, queue: SendQueue, connection: RequestorConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, options: { mode?: 'task' | 'plain'; signal?: AbortSignal; priority?: TaskPriority; startedBy?: 'chat' } = {}): Promise<string> {
  const mode = callModeFor(t, connection, tool, options.mode);
  const limit = limitOf(t);
  const mustWait = limit > 0 && (queue.waitingFor(connection.id).length > 0 || inFlight(t, connection.id) >= limit);
  if (!mustWait) return startCall(t, newCallRecord(t, connection, tool.name, args, mode, 'sending', options.startedBy), connection, tool, args, options.signal);
  if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
  const sent = newCallRecord(t, connection, tool.name, args, mode, 'queued', options.startedBy);
  sent.record.reason = `Queued (${options.priority ?? 'normal'} priority): "${connection.name}" has ${limit} call${limit === 1 ? '' : 's'} in flight, the limit (mcpTasks.requestor.maxConcurrentTasksPerServer).`;
  queue.add({ sent, tool, args, priority: options.priority ?? 'normal', signal: options.signal }, () => cancelQueued(queue, sent));
  t.add(sent);
  return Promise.resolve(sent.key);
}

/** Cancels a waiting call: it never reaches the server. Returns false if it was not waiting. */
export function cancelQueued(queue: SendQueue, sent: SentTask): boolean {
  if (!queue.remove(sent) || sent.record.phase !== 'queued') return false;
  sent.record.cancelledInQueue = true;
  sent.finish('done', 'Cancelled while queued: it never reached the server.');
  return true;
}

/**
 * Starts waiting calls of `serverId` while it runs and is under its limit (all of them when the
 * limit was lifted). Never throws: a call that cannot start ends in `error` with the reason.
 */
export function pump(t: SentTasks, queue: SendQueue, serverId: string): void {
  for (;;) {
    const next = queue.waitingFor(serverId)[0];
    if (!next) return;
    const connection = connectionOf(next.sent);
    if (!connection || connection.state.kind !== 'running') {
      const why = `Queued: waiting for "${next.sent.record.serverName}" to run.`;
      for (const q of queue.waitingFor(serverId)) {
        if (q.sent.record.reason !== why) {
          q.sent.record.reason = why;
          q.sent.changed();
        }
      }
      return;
    }
    const limit = limitOf(t);
    if (limit > 0 && inFlight(t, serverId) >= limit) return;
    queue.shift(serverId);
    const { sent } = next;
    if (t.get(sent.key) !== sent) continue; // forgotten meanwhile
    let mode: 'task' | 'plain';
    try {
      mode = callModeFor(t, connection, next.tool, sent.record.mode);
    } catch (e) {
      sent.finish('error', errorMessage(e));
      continue;
    }
    sent.record.mode = mode;
    void startCall(t, sent, connection, next.tool, next.args, next.signal).catch((e) => {
      if (sent.record.phase === 'sending' || sent.record.phase === 'queued') sent.finish('error', `tools/call failed: ${errorMessage(e)}`);
    });
  }
}
