// "MCP Tasks: Respond…" as a user runs it: with one request waiting it opens at once; with several,
// open the list of requests waiting for the user, focus the one wanted (typing a filter) and press
// Enter to open its prompt.
import type { BridgeCheckResponse, BridgeExpect, UiBridge } from './bridge';

export interface RespondOptions {
  /** Text of the request's row in the Respond… list (e.g. its title). */
  readonly row: string;
  /** Typed into the list's filter before Enter; nothing when absent. */
  readonly filter?: string;
  /** What must be on screen once the request's prompt is open. */
  readonly expect: BridgeExpect;
  readonly screenshot?: boolean;
}

/** Placeholder of the "which request?" pick (src/ui/commands/respondPick.ts). */
const WHICH = 'Respond to which request?';

/**
 * Runs Respond…; when it asks which request, waits for `row`, focuses it and presses Enter;
 * resolves once `expect` holds.
 */
export async function openWithRespond(ui: UiBridge, name: string, o: RespondOptions): Promise<BridgeCheckResponse> {
  const first = await ui.assert({ name: `${name}-respond`, actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputVisible: true } });
  if (!first.state.quickInput.placeholder.includes(WHICH)) return ui.assert({ name: `${name}-respond-open`, expect: o.expect, screenshot: o.screenshot });
  await ui.assert({ name: `${name}-respond-pick`, expect: { quickInputRow: o.row } });
  return ui.assert({
    name: `${name}-respond-open`,
    actions: [...(o.filter === undefined ? [] : [{ type: o.filter }]), { waitFor: { quickInputActiveRow: o.row } }, { press: 'Enter' }],
    expect: o.expect,
    screenshot: o.screenshot,
  });
}
