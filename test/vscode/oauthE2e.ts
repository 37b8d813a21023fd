// The OAuth tests of the real VS Code: the demo server the offline runner starts as its own process
// (so it outlives the window reload; zz-beforeReloadSignIn.test.ts and afterReload/signIn.test.ts), and
// the secrets a test's own fixture issued, handed to the runner, which greps every log of the run for them.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';

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

export const serversSetting = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('mcpTasks');

/**
 * Adds (a definition) or removes (undefined) a server in the user's settings.json, as a user editing
 * the file does; VS Code notices the change. (A `WorkspaceConfiguration.update` of this
 * application-scoped setting made at the end of a code-server window did not reach the next window.)
 */
export function editUserServers(id: string, definition: object | undefined): void {
  const file = process.env.MCP_TASKS_E2E_USER_SETTINGS;
  if (!file) throw new Error('MCP_TASKS_E2E_USER_SETTINGS is not set (run with npm run test:vscode)');
  const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const servers = { ...(settings['mcpTasks.servers'] as Record<string, unknown> | undefined) };
  if (definition) servers[id] = definition;
  else delete servers[id];
  writeFileSync(file, JSON.stringify({ ...settings, 'mcpTasks.servers': servers }, null, 2));
}

/** Hands tokens and codes a fixture issued to the offline runner (MCP_TASKS_E2E_SECRETS_FILE), which fails the run if any log holds one. */
export function reportIssuedSecrets(values: Iterable<string>): void {
  const file = process.env.MCP_TASKS_E2E_SECRETS_FILE;
  const lines = [...values].filter((v) => v.length >= 8);
  if (file && lines.length) appendFileSync(file, lines.join('\n') + '\n');
}
