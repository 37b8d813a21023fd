/**
 * The official conformance suite's client scenarios (@modelcontextprotocol/conformance) and what
 * each checks of this host (the list lives in conformanceScenarios.json, shared with
 * scripts/conformance.mjs). The runner starts a test server, runs the client with the server URL
 * as the last argument and the scenario name in `MCP_CONFORMANCE_SCENARIO`, then checks what its
 * server saw. Every scenario is served by the same generic run (connect, list tools, call each
 * tool through the tracker, answer every server request, sign in when asked — auth.ts). What a
 * scenario chooses: the authorization for the credentials in its context (auth.ts), the arguments
 * its context names (context.ts), and the one call below that needs what the client listed.
 */
import type { Tool } from '@modelcontextprotocol/client';
import scenarios from './conformanceScenarios.json';

/** Scenario → what its server checks and how the generic run satisfies it. */
export const SCENARIOS: Readonly<Record<string, string>> = {
  ...scenarios.scenarios,
  ...Object.fromEntries(Object.entries(scenarios.outsideRequirementSets).map(([name, o]) => [name, o.why])),
};

/** Why a scenario does not apply to this host, or undefined when it does (or is unknown). */
export function notApplicableReason(scenario: string): string | undefined {
  if (scenario in SCENARIOS) return undefined;
  const notApplicable: ReadonlyArray<{ prefix: string; reason: string }> = scenarios.notApplicable;
  return notApplicable.find((n) => scenario.startsWith(n.prefix))?.reason;
}

/**
 * Arguments made of what the client listed. `json-schema-2020-12-preservation` asks for the
 * inputSchema of one tool, as this host keeps it, as an argument of another: what the server gets
 * back shows whether any keyword was lost on the way into the host.
 */
export function argumentsFromListing(scenario: string | undefined, tools: readonly Tool[]): Record<string, Record<string, unknown>> {
  if (scenario !== 'json-schema-2020-12-preservation') return {};
  const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
  return focal ? { json_schema_echo: { schema: focal.inputSchema } } : {};
}
