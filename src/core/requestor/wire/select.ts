/** Which task wire a server speaks: the 2026-07-28 Tasks extension when it declares it, 2025-11-25 otherwise. */
import type { ServerCapabilities } from '@modelcontextprotocol/client';
import { declaresTasksExtension as declares } from '../../connection/tasksCapability.js';
import type { TaskWire } from './taskWire.js';
import { wire2025_11_25 } from './wire2025_11_25.js';
import { wire2026_07_28 } from './wire2026_07_28.js';

export { missingCapabilityMessage } from './wire2026_07_28.js';

export const WIRES: readonly TaskWire[] = [wire2025_11_25, wire2026_07_28];

/** Whether a server declares the Tasks extension (`capabilities.extensions["io.modelcontextprotocol/tasks"]`, §Capability Negotiation). */
export function declaresTasksExtension(capabilities: ServerCapabilities | undefined): boolean {
  return declares(capabilities);
}

/** The wire for a server's capabilities. */
export function wireForCapabilities(capabilities: ServerCapabilities | undefined): TaskWire {
  return declaresTasksExtension(capabilities) ? wire2026_07_28 : wire2025_11_25;
}

/** The wire of a stored generation name (undefined: unknown, e.g. stored by a newer version). */
export function wireByGeneration(generation: string | undefined): TaskWire | undefined {
  // A loop, not `find` with a closure: called for every poll answer.
  for (const w of WIRES) if (w.generation === generation) return w;
  return undefined;
}
