/** Which server a sent task belongs to: definition identity (`definitionKey`), orphans, id moves, and merging a server's `tasks/list` (R-LIST) as listed tasks, followed once opened. */
import { definitionFingerprint, definitionKey, type ServerDefinition } from '../config/config.js';
import type { McpConnection } from '../connection/connection.js';
import { isTerminal } from '../base/taskState.js';
import { MAX_LISTED_TASKS_PER_SERVER } from '../config/limits.js';
import { orphanServerId, type SentRecord, type TrackerInternals } from './sentRecord.js';
import { takeInline } from './taskInput.js';
import type { WireTask } from './wire/taskWire.js';
import { pruneRecords } from './persistence.js';
import { fetchResult } from './results.js';
import { pollOnce } from './polling.js';
import { applyTask } from './taskUpdates.js';

/**
 * The configured server definitions changed (and on start). Tasks follow their definition
 * (`definitionKey`: source file + name), whatever id it has now; tasks of a definition no longer
 * configured become `orphaned` (shown under their own "not configured" server, with Dismiss) and
 * come back if it is configured again; a task whose definition's content changed waits for the
 * restarted server. Data from before definition keys were kept is adopted by the definition that
 * now has its server id.
 */
export function setConfiguredServers(t: TrackerInternals, definitions: readonly ServerDefinition[]): void {
  const byKey = new Map(definitions.map((d) => [definitionKey(d), d]));
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const moves: Array<[SentRecord, string]> = [];
  for (const rec of [...t._records.values()]) {
    if (!rec.definitionKey) {
      const d = byId.get(rec.serverId);
      if (d) rec.definitionKey = definitionKey(d);
    }
    const def = rec.definitionKey ? byKey.get(rec.definitionKey) : undefined;
    if (def) {
      rec.serverName = def.name;
      const c = rec.live?.connection;
      if (c && (c.id !== def.id || definitionFingerprint(c.definition) !== definitionFingerprint(def))) {
        t._pause(rec, `The definition of "${def.name}" changed; waiting for it to start again`);
      }
      if (rec.phase === 'orphaned') {
        rec.phase = 'paused';
        rec.reason = `Waiting for "${def.name}" to connect`;
        t._changed(rec);
      }
      if (rec.serverId !== def.id) moves.push([rec, def.id]);
    } else {
      if (rec.phase === 'tracking' || rec.phase === 'paused') {
        t._detach(rec);
        rec.phase = 'orphaned';
        rec.reason = `"${rec.serverName}" is no longer configured; the task may still run there, but it cannot be reached from here. Dismiss it to forget it.`;
        t._changed(rec);
      }
      const orphanId = orphanServerId(rec);
      if (rec.serverId !== orphanId) moves.push([rec, orphanId]);
    }
  }
  move(t, moves);
}

/**
 * Reads the server's `tasks/list` (R-LIST) and adds the tasks this window does not know, as
 * *listed*: shown with the status the list gives, refreshed by the next list (on connect and on
 * Refresh), and never polled, fetched or answered until the user opens one ({@link followListed}).
 * A server decides what it lists: polling every listed task made 1,500 forged ones cost ~1,000
 * `tasks/get` a second, and on the 2026-07-28 wire each listed `input_required` task could open
 * prompts. At most {@link MAX_LISTED_TASKS_PER_SERVER} listed tasks are kept per server definition;
 * once that many are kept, paging stops.
 */
export async function mergeServerList(t: TrackerInternals, connection: McpConnection): Promise<number> {
  const wire = t._wire(connection);
  if (!wire.listsTasks(connection.serverCapabilities)) return 0;
  const defKey = claim(t, connection);
  let cursor: string | undefined;
  let added = 0;
  let refused = 0;
  let listed = 0;
  for (const rec of t._records.values()) if (rec.definitionKey === defKey && rec.origin === 'listed') listed++;
  const seen = new Set<string>();
  for (let page = 0; page < 1000; page++) {
    const res = await wire.listTasks(connection.client, cursor);
    for (const task of res.tasks) {
      const key = `${connection.id}/${task.taskId}`;
      const rec = t._records.get(key);
      if (rec && rec.definitionKey === defKey) {
        if (isUnfollowedListed(rec)) refreshListed(t, rec, task);
        else if (!rec.live && rec.phase !== 'done') applyTask(t, rec, task);
        continue;
      }
      if (listed >= MAX_LISTED_TASKS_PER_SERVER) {
        refused++;
        continue;
      }
      const terminal = isTerminal(task.status);
      const fresh: SentRecord = {
        key,
        serverId: connection.id,
        serverName: connection.name,
        definitionKey: defKey,
        toolName: '(task from elsewhere)',
        argsSummary: '',
        mode: 'task',
        origin: 'listed',
        sentAt: Date.parse(task.createdAt) || t._now(),
        phase: terminal ? 'done' : 'tracking',
        reason: LISTED_REASON,
        ...(terminal ? { finishedAt: t._now() } : {}),
        polls: 0,
        resultFetches: 0,
      };
      // Its inline result (2026-07-28) is kept; its input requests are not (no live state): they wait for the user to open it.
      fresh.task = takeInline(fresh, task);
      makeRoomFor(t, fresh);
      t._records.set(key, fresh);
      t._changed(fresh, 'added');
      added++;
      listed++;
    }
    if (listed >= MAX_LISTED_TASKS_PER_SERVER || !res.nextCursor || seen.has(res.nextCursor)) break;
    seen.add(res.nextCursor);
    cursor = res.nextCursor;
  }
  if (refused) connection.log.warn(`tasks/list: ${refused} more tasks were not added (at most ${MAX_LISTED_TASKS_PER_SERVER} listed tasks are kept per server)`);
  if (added) pruneRecords(t);
  return added;
}

/** Shown on a listed task until it is opened. */
export const LISTED_REASON = 'Listed by the server (tasks/list), not sent from this window: its status is as of the last Refresh. Open it to follow it.';

/** A listed task the user has not opened: known from `tasks/list` only, never polled. */
export function isUnfollowedListed(rec: Pick<SentRecord, 'origin' | 'followed'>): boolean {
  return rec.origin === 'listed' && rec.followed !== true;
}

/** A new list answer for a listed task nobody follows: its status, and its phase from it. */
function refreshListed(t: TrackerInternals, rec: SentRecord, task: WireTask): void {
  applyTask(t, rec, task);
  const phase = isTerminal(rec.task!.status) ? 'done' : 'tracking';
  if (rec.phase === phase && rec.reason === LISTED_REASON) return;
  if (phase === 'done') t._finish(rec, 'done', LISTED_REASON);
  else {
    rec.phase = phase;
    rec.reason = LISTED_REASON;
    t._changed(rec);
  }
}

/**
 * The user opened a listed task: from now on it is followed like a task sent from here — polled
 * at its pollInterval, its result fetched, its input requests answered — and stays followed across
 * reloads. Returns false when `rec` is not a listed task waiting to be followed.
 */
export function followListed(t: TrackerInternals, rec: SentRecord, connection: McpConnection | undefined): boolean {
  if (!isUnfollowedListed(rec) || !rec.task) return false;
  rec.followed = true;
  rec.reason = undefined;
  if (!connection || connection.state.kind !== 'running') {
    if (!isTerminal(rec.task.status)) {
      rec.phase = 'paused';
      rec.reason = `Waiting for "${rec.serverName}" to connect`;
    }
    t._changed(rec);
    return true;
  }
  t._attach(rec, connection);
  if (isTerminal(rec.task.status)) {
    t._changed(rec);
    if (!rec.outcome) void fetchResult(t, rec);
    return true;
  }
  rec.phase = 'tracking';
  t._changed(rec);
  void pollOnce(t, rec).catch(() => undefined);
  return true;
}

/**
 * Makes the tasks under `connection.id` the ones of its definition: tasks of another
 * definition that were shown under that id move to their own (orphan) server id; tasks of this
 * definition shown under another id (its id changed) move here. Returns the definition key.
 */
export function claim(t: TrackerInternals, connection: McpConnection): string {
  const key = definitionKey(connection.definition);
  const away: Array<[SentRecord, string]> = [];
  const here: Array<[SentRecord, string]> = [];
  for (const rec of t._records.values()) {
    if (!rec.definitionKey && rec.serverId === connection.id) rec.definitionKey = key; // stored before keys were kept
    if (rec.definitionKey === key && rec.serverId !== connection.id) here.push([rec, connection.id]);
    else if (rec.definitionKey !== key && rec.serverId === connection.id) away.push([rec, orphanServerId(rec)]);
  }
  move(t, [...away, ...here]);
  return key;
}

/** Re-keys records under new server ids (all removed first, so swaps cannot collide). */
export function move(t: TrackerInternals, moves: ReadonlyArray<readonly [SentRecord, string]>): void {
  if (!moves.length) return;
  for (const [rec] of moves) {
    t._records.delete(rec.key);
    t._onDidChange.fire({ key: rec.key, kind: 'removed' });
  }
  for (const [rec, serverId] of moves) {
    const from = rec.key;
    const local = rec.key.slice(rec.serverId.length + 1);
    rec.serverId = serverId;
    rec.key = `${serverId}/${local}`;
    for (let n = 2; t._records.has(rec.key); n++) rec.key = `${serverId}/${local}~${n}`;
    t._records.set(rec.key, rec);
    t._changed(rec, 'added', from);
  }
}

/** Frees `rec.key` for `rec`: a record of another definition moves away; a duplicate of the same task is replaced. */
export function makeRoomFor(t: TrackerInternals, rec: SentRecord): void {
  const other = t._records.get(rec.key);
  if (!other || other === rec) return;
  if (other.definitionKey === rec.definitionKey) t._drop(other, 'replaced');
  else move(t, [[other, orphanServerId(other)]]);
}

/** The connection a record belongs to, if it is configured (same definition). */
export function connectionOf(t: TrackerInternals, rec: SentRecord): McpConnection | undefined {
  const c = rec.live?.connection ?? t._options.connectionFor(rec.serverId);
  return c && (!rec.definitionKey || definitionKey(c.definition) === rec.definitionKey) ? c : undefined;
}
