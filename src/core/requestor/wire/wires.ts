/**
 * Kept once required: a bundle's `require` of a module makes a new namespace object, copying
 * every export, on each call, and a tool call asks for the wires a few times (bench: rev2026 host CPU per call).
 */
let wires: typeof import('./select.js') | undefined;

/**
 * The task wires (select.ts, with the SDK's and the Tasks extension's schemas) are in the protocol
 * part (scripts/lib/lazyParts.mjs), evaluated when the first server is configured, not at
 * activation. Every caller holds a live connection, and making one loaded that part
 * (connection/registry.ts), so this `require` finds it loaded; in the sources it loads select.ts.
 */
export function taskWires(): typeof import('./select.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return (wires ??= require('./select.js') as typeof import('./select.js'));
}
