// The OAuth tests of the real VS Code: the demo server the offline runner starts as its own process
// (so it outlives the window reload; beforeReload/signIn.test.ts and afterReload/signIn.test.ts), and
// the secrets a test's own fixture issued, handed to the runner, which greps every log of the run for them.
import { appendFileSync } from 'node:fs';
import type { ServerDefinition } from '../../src/core/config/config';
import { serversFromUserSettings } from '../../src/core/config/trust';

export const OAUTH_RELOAD_SERVER = 'oauth-reload';

/** The fixture's MCP URL; skips the test under runners that do not start it (test-electron). */
export function oauthFixtureUrl(ctx: Mocha.Context): string {
  const url = process.env.MCP_TASKS_E2E_OAUTH;
  if (!url) {
    console.log(`    (skipped: no OAuth fixture process, MCP_TASKS_E2E_OAUTH is not set: run with npm run test:vscode)`);
    ctx.skip();
  }
  return url;
}

/** What the fixture's authorization server has done so far (test/fixtures/oauthServer.ts, POST /control/state). */
export async function oauthFixtureCounters(mcpUrl: string): Promise<{ registrations: number; authorizations: number; codeExchanges: number; refreshes: number }> {
  const res = await fetch(new URL('/control/state', mcpUrl), { method: 'POST' });
  if (!res.ok) throw new Error(`the OAuth fixture's state: HTTP ${res.status}`);
  return (await res.json()) as { registrations: number; authorizations: number; codeExchanges: number; refreshes: number };
}

/**
 * The OAuth demo server as a server of the user settings (`mcpTasks.servers`) is defined: the same
 * definition in both windows, so the same SecretStorage keys. (Configured in memory: code-server's
 * window did not pick up a settings change written at the end of the window before.)
 */
export function oauthReloadDefinition(url: string): ServerDefinition {
  const servers = serversFromUserSettings({ globalValue: { [OAUTH_RELOAD_SERVER]: { type: 'http', url } } }, undefined).servers;
  if (servers.length !== 1) throw new Error(`expected one server definition, got ${servers.length}`);
  return servers[0]!;
}

/** Hands tokens and codes a fixture issued to the offline runner (MCP_TASKS_E2E_SECRETS_FILE), which fails the run if any log holds one. */
export function reportIssuedSecrets(values: Iterable<string>): void {
  const file = process.env.MCP_TASKS_E2E_SECRETS_FILE;
  const lines = [...values].filter((v) => v.length >= 8);
  if (file && lines.length) appendFileSync(file, lines.join('\n') + '\n');
}
