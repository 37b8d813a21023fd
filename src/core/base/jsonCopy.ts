/**
 * A deep copy of JSON data (what a server sends, what is stored) at a fraction of the cost of
 * `structuredClone`, which serialises and deserialises: a snapshot of a finished call copies its
 * result, and that copy was a good part of the tracker's own CPU per call (bench: rev2026 host CPU per call).
 */
import { MAX_JSON_DEPTH } from './jsonDepth.js';

/**
 * The copy `structuredClone` makes of JSON data: plain objects, arrays and primitives, copied
 * here. Anything else (a Date, a Map, a class instance, a function) and whatever nests deeper than
 * {@link MAX_JSON_DEPTH} is handed to `structuredClone`, so it is copied, or refused with the
 * same error, as before.
 */
export function copyJson<T>(value: T): T {
  return copy(value, MAX_JSON_DEPTH) as T;
}

function copy(value: unknown, levelsLeft: number): unknown {
  if (typeof value !== 'object' || value === null) return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  if (levelsLeft === 0) return structuredClone(value);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const items = value as unknown[];
    const out = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) if (i in items) out[i] = copy(items[i], levelsLeft - 1);
    return out;
  }
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) out[key] = copy(record[key], levelsLeft - 1);
  return out;
}
