/** Which server a sent task belongs to: definition identity (`definitionKey`), orphans, id moves, and merging a server's `tasks/list` (R-LIST). */
import { definitionFingerprint, definitionKey, type ServerDefinition } from '../config/config.js';
import type { McpConnection } from '../connection/connection.js';
import { orphanServerId, type SentRecord, type TrackerInternals } from './sentRecord.js';

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
  t._move(moves);
}

/** Reads every page of the server's `tasks/list` and adds the tasks this window does not know. */
export async function mergeServerList(t: TrackerInternals, connection: McpConnection): Promise<number> {
  const wire = t._wire(connection);
  if (!wire.listsTasks(connection.serverCapabilities)) return 0;
  const defKey = t._claim(connection);
  let cursor: string | undefined;
  let added = 0;
  const seen = new Set<string>();
  for (let page = 0; page < 1000; page++) {
    const res = await wire.listTasks(connection.client, cursor);
    for (const task of res.tasks) {
      const key = `${connection.id}/${task.taskId}`;
      const rec = t._records.get(key);
      if (rec && rec.definitionKey === defKey) {
        if (!rec.live && rec.phase !== 'done') t._applyTask(rec, task);
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
        sentAt: Date.parse(task.createdAt) || t._now(),
        phase: 'tracking',
        task,
        polls: 0,
        resultFetches: 0,
      };
      t._makeRoomFor(listed);
      t._records.set(key, listed);
      t._attach(listed, connection);
      t._changed(listed, 'added');
      t._afterUpdate(listed);
      added++;
    }
    if (!res.nextCursor || seen.has(res.nextCursor)) break;
    seen.add(res.nextCursor);
    cursor = res.nextCursor;
  }
  if (added) t._prune();
  return added;
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
  t._move([...away, ...here]);
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
  else t._move([[other, orphanServerId(other)]]);
}

/** The connection a record belongs to, if it is configured (same definition). */
export function connectionOf(t: TrackerInternals, rec: SentRecord): McpConnection | undefined {
  const c = rec.live?.connection ?? t._options.connectionFor(rec.serverId);
  return c && (!rec.definitionKey || definitionKey(c.definition) === rec.definitionKey) ? c : undefined;
}
