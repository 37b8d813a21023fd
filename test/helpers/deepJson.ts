/** A JSON value nested `depth` levels deep: `{"a":{"a":…{}}}` (the outermost object is level 1). */
export function nestedValue(depth: number): unknown {
  let v: unknown = {};
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}
