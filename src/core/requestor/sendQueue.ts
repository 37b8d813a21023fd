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
import type { McpConnection } from '../connection/connection.js';
import type { SentRecord, TrackerInternals } from './sentRecord.js';
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
  readonly rec: SentRecord;
  readonly tool: Pick<Tool, 'name' | 'execution'>;
  readonly args: Record<string, unknown>;
  readonly priority: TaskPriority;
  readonly signal?: AbortSignal;
  /** Arrival order (FIFO within a priority). */
  readonly seq: number;
}

/** Waiting calls of every server, ordered by priority then arrival. Pure bookkeeping. */
export class SendQueue {
  private readonly _items: QueuedCall[] = [];
  private _seq = 0;

  get size(): number {
    return this._items.length;
  }

  add(item: Omit<QueuedCall, 'seq'>): QueuedCall {
    const q: QueuedCall = { ...item, seq: ++this._seq };
    this._items.push(q);
    return q;
  }

  /** Calls waiting for `serverId`, in the order they will start. */
  waitingFor(serverId: string): QueuedCall[] {
    return this._items.filter((q) => q.rec.serverId === serverId).sort(byTurn);
  }

  /** Server ids with waiting calls. */
  servers(): Set<string> {
    return new Set(this._items.map((q) => q.rec.serverId));
  }

  /** Takes the next call for `serverId` (highest priority, then oldest). */
  shift(serverId: string): QueuedCall | undefined {
    const next = this.waitingFor(serverId)[0];
    if (next) this._items.splice(this._items.indexOf(next), 1);
    return next;
  }

  /** Removes the call of `rec`; returns it, or undefined if it was not waiting. */
  remove(rec: SentRecord): QueuedCall | undefined {
    const i = this._items.findIndex((q) => q.rec === rec);
    return i < 0 ? undefined : this._items.splice(i, 1)[0];
  }

  /** The call of `rec`, if it waits. */
  find(rec: SentRecord): QueuedCall | undefined {
    return this._items.find((q) => q.rec === rec);
  }
}

function byTurn(a: QueuedCall, b: QueuedCall): number {
  return rank(b.priority) - rank(a.priority) || a.seq - b.seq;
}

/** The limit for a server (0: none). */
function limitOf(t: TrackerInternals): number {
  const n = t._options.maxConcurrentPerServer?.() ?? 0;
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** Calls of this window in flight on `serverId` (sent and not yet finished). */
export function inFlight(t: TrackerInternals, serverId: string): number {
  let n = 0;
  for (const r of t._records.values()) if (r.serverId === serverId && r.origin === 'local' && (r.phase === 'sending' || r.phase === 'tracking')) n++;
  return n;
}

/**
 * Calls a tool through the queue: sent at once while the server is under its limit and nothing
 * waits before it; else added as a `queued` record. Resolves with the local key (once under way
 * when sent at once, like `callTool`; at once when queued).
 */
export function queueOrCall(t: TrackerInternals, queue: SendQueue, connection: McpConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, options: { mode?: 'task' | 'plain'; signal?: AbortSignal; priority?: TaskPriority; startedBy?: 'chat' } = {}): Promise<string> {
  const mode = callModeFor(t, connection, tool, options.mode);
  const limit = limitOf(t);
  const mustWait = limit > 0 && (queue.waitingFor(connection.id).length > 0 || inFlight(t, connection.id) >= limit);
  if (!mustWait) return startCall(t, newCallRecord(t, connection, tool.name, args, mode, 'sending', options.startedBy), connection, tool, args, options.signal);
  if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
  const rec = newCallRecord(t, connection, tool.name, args, mode, 'queued', options.startedBy);
  rec.reason = `Queued (${options.priority ?? 'normal'} priority): "${connection.name}" has ${limit} call${limit === 1 ? '' : 's'} in flight, the limit (mcpTasks.requestor.maxConcurrentTasksPerServer).`;
  queue.add({ rec, tool, args, priority: options.priority ?? 'normal', signal: options.signal });
  options.signal?.addEventListener('abort', () => cancelQueued(t, queue, rec), { once: true });
  t._records.set(rec.key, rec);
  t._changed(rec, 'added');
  return Promise.resolve(rec.key);
}

/** Cancels a waiting call: it never reaches the server. Returns false if it was not waiting. */
export function cancelQueued(t: TrackerInternals, queue: SendQueue, rec: SentRecord): boolean {
  if (!queue.remove(rec) || rec.phase !== 'queued') return false;
  rec.cancelledInQueue = true;
  t._finish(rec, 'done', 'Cancelled while queued: it never reached the server.');
  return true;
}

/**
 * Starts waiting calls of `serverId` while it runs and is under its limit (all of them when the
 * limit was lifted). Never throws: a call that cannot start ends in `error` with the reason.
 */
export function pump(t: TrackerInternals, queue: SendQueue, serverId: string): void {
  for (;;) {
    const next = queue.waitingFor(serverId)[0];
    if (!next) return;
    const connection = connectionOf(t, next.rec);
    if (!connection || connection.state.kind !== 'running') {
      const why = `Queued: waiting for "${next.rec.serverName}" to run.`;
      for (const q of queue.waitingFor(serverId)) {
        if (q.rec.reason !== why) {
          q.rec.reason = why;
          t._changed(q.rec);
        }
      }
      return;
    }
    const limit = limitOf(t);
    if (limit > 0 && inFlight(t, serverId) >= limit) return;
    queue.shift(serverId);
    if (t._records.get(next.rec.key) !== next.rec) continue; // forgotten meanwhile
    let mode: 'task' | 'plain';
    try {
      mode = callModeFor(t, connection, next.tool, next.rec.mode);
    } catch (e) {
      t._finish(next.rec, 'error', errorMessage(e));
      continue;
    }
    next.rec.mode = mode;
    void startCall(t, next.rec, connection, next.tool, next.args, next.signal).catch((e) => {
      if (next.rec.phase === 'sending' || next.rec.phase === 'queued') t._finish(next.rec, 'error', `tools/call failed: ${errorMessage(e)}`);
    });
  }
}
