/**
 * Whether a server declares the 2026-07-28 Tasks extension (`capabilities.extensions["io.modelcontextprotocol/tasks"]`,
 * §Capability Negotiation), read once per capabilities object.
 *
 * The extension's own guard (`hasTaskServerCapabilityV2`) validates the whole capability envelope
 * with its schema, and a tool call asked it five times (the call's mode, its wire, the request's
 * `_meta` envelope): about a tenth of the tracker's own CPU per call (bench: rev2026 host CPU per
 * call). A connection's capabilities are one object for the life of its session (the SDK's parsed
 * answer, never changed in place), so its answer is kept with it and goes with it.
 */
import { hasTaskServerCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';

const declared = new WeakMap<object, boolean>();

export function declaresTasksExtension(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return hasTaskServerCapabilityV2(capabilities);
  let has = declared.get(capabilities);
  if (has === undefined) declared.set(capabilities, (has = hasTaskServerCapabilityV2(capabilities)));
  return has;
}
