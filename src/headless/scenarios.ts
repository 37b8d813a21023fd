/**
 * The official conformance suite's client scenarios (@modelcontextprotocol/conformance 0.1.16)
 * and what this host does for each (the list lives in conformanceScenarios.json, shared with
 * scripts/conformance.mjs). The runner starts a test server, runs the client with the server
 * URL as the last argument and the scenario name in `MCP_CONFORMANCE_SCENARIO`, then checks
 * what its server saw. Every applicable scenario is served by the same generic run (connect,
 * list tools, call each tool, answer every server request, sign in when asked — auth.ts): the
 * only scenario-dependent choice is the grant for credentials in MCP_CONFORMANCE_CONTEXT.
 */
import scenarios from './conformanceScenarios.json';

/** Applicable scenario → what its server checks and how the generic run satisfies it. */
export const APPLICABLE_SCENARIOS: Readonly<Record<string, string>> = scenarios.applicable;

/** Why a scenario does not apply to this host, or undefined when it does (or is unknown). */
export function notApplicableReason(scenario: string): string | undefined {
  if (scenario in APPLICABLE_SCENARIOS) return undefined;
  const notApplicable: ReadonlyArray<{ prefix: string; reason: string }> = scenarios.notApplicable;
  return notApplicable.find((n) => scenario.startsWith(n.prefix))?.reason;
}
