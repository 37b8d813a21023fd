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

/** Values {@link sharedJson} froze whole (every object and array in them): shared as they are from then on. */
const frozenWhole = new WeakSet<object>();

/**
 * `value` itself, deep-frozen, when it is JSON data made only of plain objects (`Object.prototype`),
 * arrays and primitives, no deeper than {@link MAX_JSON_DEPTH}; else {@link copyJson}'s copy (or its
 * error). Frozen once, in place and whole or not at all: every later call returns it at once. A stored
 * result is read by every snapshot (the tree, the documents, the status bar, the chat tools, the API),
 * and each copied it; freezing costs about one copy, once. Nothing may change the value afterwards:
 * whoever holds it holds a frozen value (what goes to another extension is copied: api/apiMapping.ts).
 */
export function sharedJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return copyJson(value);
  if (frozenWhole.has(value)) return value;
  if (!plainJson(value, MAX_JSON_DEPTH)) return copyJson(value);
  freezeWhole(value);
  frozenWhole.add(value);
  return value;
}

/** Whether `value` is made only of plain objects, arrays and primitives, down to `levelsLeft` levels. */
function plainJson(value: unknown, levelsLeft: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function' && typeof value !== 'symbol';
  if (levelsLeft === 0) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) if (!plainJson(items[i], levelsLeft - 1)) return false;
    return true;
  }
  if (proto !== Object.prototype) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) if (!plainJson(record[key], levelsLeft - 1)) return false;
  return true;
}

/** Freezes `value` and everything in it (checked plain by {@link plainJson}: its depth is bounded). */
function freezeWhole(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) for (const item of value as unknown[]) freezeWhole(item);
  else for (const key in value as Record<string, unknown>) freezeWhole((value as Record<string, unknown>)[key]);
  Object.freeze(value);
}
