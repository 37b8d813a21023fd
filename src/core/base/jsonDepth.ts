/**
 * How deeply a JSON value nests, checked without recursing past a limit. Everything a server
 * sends is copied (`structuredClone`), serialised (`JSON.stringify`), rendered and validated by
 * code that recurses once per level; V8 throws a `RangeError` a few thousand levels down, so one
 * 10 KB message nested 5,000 deep would break every caller that touches it, for every server.
 * The check visits each value once and stops at the limit, so its own stack stays bounded.
 */

/** Deepest nesting of arrays and objects accepted in one message from a server (the message itself is level 1). */
export const MAX_JSON_DEPTH = 128;

/** Whether `value` nests arrays and objects more than `limit` levels deep. */
export function nestsDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  return deeper(value, limit);
}

function deeper(value: unknown, levelsLeft: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levelsLeft === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeper(item, levelsLeft - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (deeper(record[key], levelsLeft - 1)) return true;
  return false;
}
