/**
 * Wire formatting of the receiver's tasks: fast ISO timestamps and signed opaque `tasks/list`
 * cursors (R-LIST-2).
 */
import { createHmac } from 'node:crypto';

/** Encodes/decodes signed opaque cursors bound to one server's tasks (R-LIST-2). */
export function signCursor(key: Buffer, serverId: string, seq: number): string {
  const mac = createHmac('sha256', key).update(`${serverId}\n${seq}`).digest('base64url').slice(0, 22);
  return `${seq.toString(36)}.${mac}`;
}

export function verifyCursor(key: Buffer, serverId: string, cursor: string): number | undefined {
  const dot = cursor.indexOf('.');
  if (dot <= 0) return undefined;
  const seq = parseInt(cursor.slice(0, dot), 36);
  if (!Number.isSafeInteger(seq) || seq < 0 || seq.toString(36) !== cursor.slice(0, dot)) return undefined;
  return signCursor(key, serverId, seq) === cursor ? seq : undefined;
}

/** The second last formatted by {@link isoTime}, and its "YYYY-MM-DDTHH:MM:SS." prefix. */
let isoSecond = NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()`, faster: tasks close in time share the formatted second and only
 * "mmmZ" is appended (one concatenation, no per-call number formatting). Used once per task
 * change; `toTask` (every `tasks/get`, every entry of a `tasks/list` page) reuses the strings kept
 * in the record — formatting two dates per read was its main cost (bench: receiver tasks/get latency). Whole
 * milliseconds in years 1970–9999 only; anything else takes the slow path.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > 253_402_300_799_999) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    isoSecond = second;
  }
  return isoPrefix + isoMillis(ms - second * 1000);
}

/** "000Z" … "999Z", made once, so that a time is a single concatenation. */
let isoMillisTable: string[] | undefined;
function isoMillis(frac: number): string {
  isoMillisTable ??= Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);
  return isoMillisTable[frac]!;
}
