/**
 * Which server a sent task belongs to: definition identity (`definitionKey`), orphans, server id
 * moves (a task's `serverId` follows its definition; its key never changes), and merging a
 * server's `tasks/list` (R-LIST) as listed tasks, followed once opened.
 */
import { definitionFingerprint, definitionKey, type ServerDefinition } from '../config/config.js';
import type { RequestorConnection } from '../connection/connection.js';
import { isTerminal } from '../base/taskState.js';
import { MAX_LISTED_TASKS_PER_SERVER } from '../config/limits.js';
import { orphanServerId, type SentRecord } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import type { SentTasks } from './sentTasks.js';
import { splitInline } from './inlineInputs.js';
import type { WireTask } from './wire/taskWire.js';
import { pruneRecords } from './persistence.js';
import { sameOrigin } from '../connection/serverOrigin.js';

/**
 * The configured server definitions changed (and on start). Tasks follow their definition
 * (`definitionKey`: source file + name), whatever id it has now; tasks of a definition no longer
 * configured become `orphaned` (shown under their own "not configured" server, with Dismiss) and
 * come back if it is configured again; a task whose definition's content changed waits for the
 * restarted server. Data from before definition keys were kept is adopted by the definition that
 * now has its server id.
 */
export function setConfiguredServers(t: SentTasks, definitions: readonly ServerDefinition[]): void {
  const byKey = new Map(definitions.map((d) => [definitionKey(d), d]));
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const moves: Array<[SentTask, string]> = [];
  for (const sent of [...t.all()]) {
    const rec = sent.record;
    if (!rec.definitionKey) {
      const d = byId.get(rec.serverId);
      if (d) rec.definitionKey = definitionKey(d);
    }
    const def = rec.definitionKey ? byKey.get(rec.definitionKey) : undefined;
    if (def) {
      rec.serverName = def.name;
      const c = sent.live?.connection;
      if (c && (c.id !== def.id || definitionFingerprint(c.definition) !== definitionFingerprint(def))) {
        sent.pause(`The definition of "${def.name}" changed; waiting for it to start again`);
      }
      if (rec.phase === 'orphaned') {
        sent.moveTo('paused', `Waiting for "${def.name}" to connect`);
        sent.changed();
      }
      if (rec.serverId !== def.id) moves.push([sent, def.id]);
    } else {
      if (rec.phase === 'tracking' || rec.phase === 'paused') {
        sent.detach();
        sent.moveTo('orphaned', `"${rec.serverName}" is no longer configured; the task may still run there, but it cannot be reached from here. Dismiss it to forget it.`);
        sent.changed();
      }
      const orphanId = orphanServerId(rec);
      if (rec.serverId !== orphanId) moves.push([sent, orphanId]);
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
export async function mergeServerList(t: SentTasks, connection: RequestorConnection): Promise<number> {
  const wire = t.wireFor(connection);
  if (!wire.listsTasks(connection.serverCapabilities)) return 0;
  const defKey = claim(t, connection);
  let cursor: string | undefined;
  let added = 0;
  let refused = 0;
  let listed = 0;
  for (const { record } of t.all()) if (record.definitionKey === defKey && record.origin === 'listed') listed++;
  const seen = new Set<string>();
  const origin = connection.origin;
  const sentTo = origin && { kind: origin.kind, id: origin.id, label: origin.label };
  let elsewhere = 0;
  for (let page = 0; page < 1000; page++) {
    const res = await wire.listTasks(connection.client, cursor);
    for (const task of res.tasks) {
      const same = t.allByTaskId(connection.id, task.taskId).filter((k) => k.record.definitionKey === defKey);
      for (const k of same) if (isUnfollowedListed(k.record) && !k.record.sentTo) k.record.sentTo = sentTo; // a listed task kept before origins were: it is where it is listed
      const known = same.find((k) => sameOrigin(k.record.sentTo, origin));
      if (known) {
        if (isUnfollowedListed(known.record)) refreshListed(known, task);
        else if (!known.live && known.record.phase !== 'done') known.takeListed(task);
        continue;
      }
      if (same.length) {
        // The same id at another server is another task: it neither updates that one nor is added (sentOrigin.ts).
        elsewhere++;
        continue;
      }
      if (listed >= MAX_LISTED_TASKS_PER_SERVER) {
        refused++;
        continue;
      }
      const terminal = isTerminal(task.status);
      // Its inline result (2026-07-28) is kept; its input requests are not (no live state): they wait for the user to open it.
      const { task: plain, outcome } = splitInline(task);
      const fresh = t.create({
        key: t.freeKey(`${connection.id}/${task.taskId}`),
        serverId: connection.id,
        serverName: connection.name,
        definitionKey: defKey,
        toolName: '(task from elsewhere)',
        argsSummary: '',
        mode: 'task',
        origin: 'listed',
        ...(sentTo ? { sentTo } : {}),
        sentAt: Date.parse(task.createdAt) || t.now(),
        phase: terminal ? 'done' : 'tracking',
        reason: LISTED_REASON,
        ...(terminal ? { finishedAt: t.now() } : {}),
        polls: 0,
        resultFetches: outcome ? 1 : 0,
        task: plain,
        ...(outcome ? { outcome } : {}),
      });
      t.add(fresh);
      makeRoomFor(t, fresh);
      added++;
      listed++;
    }
    if (listed >= MAX_LISTED_TASKS_PER_SERVER || !res.nextCursor || seen.has(res.nextCursor)) break;
    seen.add(res.nextCursor);
    cursor = res.nextCursor;
  }
  if (elsewhere) connection.log.info(`tasks/list: ${elsewhere} listed task id(s) are those of tasks sent to another server under this name; they were not added`);
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
function refreshListed(sent: SentTask, task: WireTask): void {
  const rec = sent.record;
  sent.takeListed(task);
  const phase = isTerminal(rec.task!.status) ? 'done' : 'tracking';
  if (rec.phase === phase && rec.reason === LISTED_REASON) return;
  if (phase === 'done') sent.finish('done', LISTED_REASON);
  else {
    sent.moveTo(phase, LISTED_REASON);
    sent.changed();
  }
}

/**
 * The user opened a listed task: from now on it is followed like a task sent from here — polled
 * at its pollInterval, its result fetched, its input requests answered — and stays followed across
 * reloads. Returns false when `rec` is not a listed task waiting to be followed.
 */
export function followListed(sent: SentTask, connection: RequestorConnection | undefined): boolean {
  const rec = sent.record;
  if (!isUnfollowedListed(rec) || !rec.task) return false;
  rec.followed = true;
  rec.reason = undefined;
  if (!connection || connection.state.kind !== 'running') {
    if (!isTerminal(rec.task.status)) sent.moveTo('paused', `Waiting for "${rec.serverName}" to connect`);
    sent.changed();
    return true;
  }
  if (!sent.mayReach(connection)) return true;
  const live = sent.attach(connection);
  if (isTerminal(rec.task.status)) {
    sent.changed();
    if (!rec.outcome) void live.fetchResult();
    return true;
  }
  sent.moveTo('tracking');
  sent.changed();
  void live.pollOnce().catch(() => undefined);
  return true;
}

/**
 * Makes the tasks under `connection.id` the ones of its definition: tasks of another
 * definition that were shown under that id move to their own (orphan) server id; tasks of this
 * definition shown under another id (its id changed) move here. Returns the definition key.
 */
export function claim(t: SentTasks, connection: RequestorConnection): string {
  const key = definitionKey(connection.definition);
  const away: Array<[SentTask, string]> = [];
  const here: Array<[SentTask, string]> = [];
  for (const sent of t.all()) {
    const rec = sent.record;
    if (!rec.definitionKey && rec.serverId === connection.id) rec.definitionKey = key; // stored before keys were kept
    if (rec.definitionKey === key && rec.serverId !== connection.id) here.push([sent, connection.id]);
    else if (rec.definitionKey !== key && rec.serverId === connection.id) away.push([sent, orphanServerId(rec)]);
  }
  move(t, [...away, ...here]);
  return key;
}

/** Moves tasks to new server ids (their keys stay). */
export function move(t: SentTasks, moves: ReadonlyArray<readonly [SentTask, string]>): void {
  for (const [sent, serverId] of moves) t.moveServer(sent, serverId);
}

/**
 * The server named `sent`'s task: another task it names so gives way — one of another definition
 * moves to its own (orphan) server id; a duplicate of the same task (same definition, same origin)
 * is replaced. A task of the same definition sent to another origin is another task whatever its
 * id (sentOrigin.ts): both stay.
 */
export function makeRoomFor(t: SentTasks, sent: SentTask): void {
  const taskId = sent.record.task?.taskId;
  if (taskId === undefined) return;
  const named = t.allByTaskId(sent.record.serverId, taskId);
  if (named.length === 1) return; // only `sent` (most often): nothing to make room for
  for (const other of named) {
    if (other === sent) continue;
    if (other.record.definitionKey !== sent.record.definitionKey) t.moveServer(other, orphanServerId(other.record));
    else if (sameOrigin(other.record.sentTo, sent.record.sentTo)) t.drop([other], 'replaced');
  }
}

/** The connection a record belongs to, if it is configured (same definition). */
export function connectionOf(sent: SentTask): RequestorConnection | undefined {
  const rec = sent.record;
  const c = sent.live?.connection ?? sent.host.options.connectionFor(rec.serverId);
  return c && (!rec.definitionKey || definitionKey(c.definition) === rec.definitionKey) ? c : undefined;
}
