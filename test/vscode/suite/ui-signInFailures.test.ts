// Sign-in to a remote MCP server, the bad cases that need the authorization server's help,
// in the real workbench (the closed page and Deny are in ui-signIn.test.ts): each ends with a clear
// message (screenshot), the server waiting at "sign in required" and a still-working extension.
// - a wrong `state` parameter: the consent page's Approve link carries a forged state (the fixture's
//   `forgedState` knob), the browser comes back to the loopback redirect with it → ignored (answered
//   400, no code exchanged, the sign-in keeps waiting); Sign In again replaces it and works;
// - an expired refresh token: the fixture expires the access token and the refresh token
//   (POST /control/expire-refresh, loopback only); the next tool call fails, the refresh fails →
//   "sign in required" with its notification, no retry loop; signing in again works;
// - the authorization server down: a fixture instance of this test stops its authorization server
//   (POST /control/stop-as) before the sign-in → a message naming it; another server runs a tool.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ServerDefinition } from '../../../src/core/config/config';
import type { McpTasksApi } from '../../../src/extension';
import { serveOAuthFixture, type OAuthFixture } from '../../fixtures/oauthServer';
import { uiBridgeOrSkip, type UiBridge } from '../bridge';
import { reportIssuedSecrets } from '../oauthE2e';
import { apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';

let api: McpTasksApi;
const fixtures: OAuthFixture[] = [];

function definition(id: string, fx: OAuthFixture): ServerDefinition {
  return { id, name: id, source: { kind: 'user', file: 'test settings (oauth)' }, transport: { type: 'http', url: fx.url, headers: {} }, inputs: [] };
}

async function control(fx: OAuthFixture, action: 'expire-refresh' | 'stop-as'): Promise<void> {
  const res = await fetch(new URL(`/control/${action}`, fx.url), { method: 'POST' });
  assert.equal(res.status, 200, `the fixture's ${action}`);
}

/** Configures the server and waits for "sign in required" (signing out first: a retry may find it signed in). */
async function configureSignedOut(id: string, fx: OAuthFixture): Promise<void> {
  if (api.registry.get(id)) await vscode.commands.executeCommand('mcpTasks.signOut', id);
  else await api.registry.setDefinitions([...api.registry.connections.map((c) => c.definition), definition(id, fx)]);
  await until(api, () => api.registry.get(id)?.state.kind === 'needs-sign-in', `${id} to need a sign-in`);
}

/** Sign In (inline action), Approve on the page → running. */
async function signInThroughTheBrowser(ui: UiBridge, id: string, name: string): Promise<void> {
  await ui.assert({
    name,
    actions: [{ openView: true }, { clickTreeRowAction: { row: id, action: 'Sign In' } }, { externalPage: { urlIncludes: '/authorize', click: '#approve' } }],
    timeoutMs: 60_000,
  });
  await until(api, () => api.registry.get(id)?.state.kind === 'running', `${id} to run after the sign-in`, 60_000);
}

/** A tool call through the tracker (what "Run Tool…" does), to its end; its outcome. */
async function runTool(id: string, name: string, args: Record<string, unknown> = {}) {
  const key = await api.tracker.callTool(api.registry.get(id)!, { name, execution: name === 'quick_echo' ? { taskSupport: 'optional' } : undefined }, args);
  await until(api, () => !!api.tracker.get(key)?.outcome, `${name} on ${id} to end`, 60_000);
  return api.tracker.get(key)!.outcome!;
}

async function assertStillWorking(): Promise<void> {
  assert.equal(api.registry.get('demo')?.state.kind, 'running', 'the other servers keep running');
  const outcome = await runTool('demo', 'quick_echo', { text: 'still working', delayMs: 10 });
  assert.equal(outcome.kind, 'result', `quick_echo on demo: ${JSON.stringify(outcome)}`);
}

suite('Sign in to a remote server (OAuth): wrong state, expired refresh token, authorization server down', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    api = await apiWithServersRunning('demo');
  });
  suiteTeardown(async function () {
    this.timeout(60_000);
    if (api) {
      for (const id of ['oauth-state', 'oauth-as-down']) await vscode.commands.executeCommand('mcpTasks.signOut', id).then(undefined, () => undefined);
      await api.registry.setDefinitions(api.config.definitions);
    }
    reportIssuedSecrets(fixtures.flatMap((f) => [...f.provider.issued]));
    for (const f of fixtures.splice(0)) await f.close();
  });
  cleanUpAfterEachTest(() => api);
  // Each test reads its own notifications: the center renders only the rows in its view, and the
  // notifications of the suites before (kept scrolled to the last one read) can hide a new one.
  setup(async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('a redirect with a wrong state parameter is ignored (no code exchanged, the sign-in still waits); Sign In again opens a new page that works', async function () {
    this.timeout(240_000);
    const ui = uiBridgeOrSkip(this);
    const id = 'oauth-state';
    const fx = await serveOAuthFixture({ consentPage: true });
    fixtures.push(fx);
    await configureSignedOut(id, fx);

    // Approve on a page whose links carry a forged state: the loopback redirect ignores it (another page on this
    // machine could send one to end the sign-in), no code is exchanged, and the sign-in keeps waiting.
    fx.provider.forgedState = 'forged-state-0f1e2d';
    const exchanges = fx.provider.counters.codeExchanges;
    try {
      await ui.assert({
        name: 'oauth-wrong-state',
        actions: [{ openView: true }, { clickTreeRowAction: { row: id, action: 'Sign In' } }, { externalPage: { urlIncludes: '/authorize', click: '#approve' } }],
        expect: { notification: `Signing in to "${id}"`, treeRows: [`${id} sign in required`] },
        screenshot: true,
        timeoutMs: 60_000,
      });
    } finally {
      fx.provider.forgedState = undefined;
    }
    assert.equal(api.registry.get(id)?.state.kind, 'needs-sign-in');
    assert.equal(fx.provider.counters.codeExchanges, exchanges, 'no code was exchanged');
    await ui.assert({ name: 'oauth-wrong-state-no-refusal', expect: { noNotification: 'was refused' } });
    await assertStillWorking();

    // A second attempt (the true state) works, and the server runs a tool.
    await signInThroughTheBrowser(ui, id, 'oauth-wrong-state-then-approve');
    assert.equal(fx.provider.counters.codeExchanges, exchanges + 1);
    const outcome = await runTool(id, 'whoami');
    assert.equal(outcome.kind, 'result', `whoami: ${JSON.stringify(outcome)}`);
  });

  test('an expired refresh token ends at "sign in required" with its notification, no retry loop; signing in again works', async function () {
    this.timeout(240_000);
    const ui = uiBridgeOrSkip(this);
    const id = 'oauth-state';
    const fx = fixtures[0];
    if (!fx) return this.skip();
    if (api.registry.get(id)?.state.kind !== 'running') {
      await configureSignedOut(id, fx);
      await signInThroughTheBrowser(ui, id, 'oauth-expired-refresh-sign-in');
    }

    // Every access and refresh token of the fixture expires; the next call gets a 401, the refresh is refused.
    const seen: string[] = [];
    const sub = api.registry.onDidChangeState(({ connection, state }) => connection.id === id && seen.push(state.kind));
    try {
      const refreshes = fx.provider.counters.refreshes;
      const authorizations = fx.provider.counters.authorizations;
      await control(fx, 'expire-refresh');
      const outcome = await runTool(id, 'whoami');
      // (Its message depends on which comes first, the connection's "needs a sign-in" or the tracker's pause.)
      assert.equal(outcome.kind, 'error', `whoami after the tokens expired: ${JSON.stringify(outcome)}`);
      await until(api, () => api.registry.get(id)?.state.kind === 'needs-sign-in', `${id} to need a sign-in after its refresh token expired`);
      await ui.assert({
        name: 'oauth-expired-refresh',
        actions: [{ openView: true }],
        expect: { treeRows: [`${id} sign in required`], notification: `MCP server "${id}" needs you to sign in at ${new URL(fx.authServerUrl).origin}` },
        screenshot: true,
        timeoutMs: 30_000,
      });
      // No loop: once at "sign in required", it stays there (no reconnect, no refresh, no authorization).
      assert.equal(seen.at(-1), 'needs-sign-in', `states: ${seen.join(' → ')}`);
      assert.equal(seen.filter((s) => s === 'needs-sign-in').length, 1, `states: ${seen.join(' → ')}`);
      assert.equal(fx.provider.counters.refreshes, refreshes, 'no refresh was granted');
      assert.equal(fx.provider.counters.authorizations, authorizations, 'no browser page was opened by itself');
      await assertStillWorking();
      assert.equal(api.registry.get(id)?.state.kind, 'needs-sign-in', `still waiting: ${seen.join(' → ')}`);
    } finally {
      sub.dispose();
    }

    // Signing in again works.
    await signInThroughTheBrowser(ui, id, 'oauth-expired-refresh-sign-in-again');
    const outcome = await runTool(id, 'whoami');
    assert.equal(outcome.kind, 'result', `whoami after signing in again: ${JSON.stringify(outcome)}`);
  });

  test('the authorization server is down: a clear message naming it; the server waits, the others run', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const id = 'oauth-as-down';
    const fx = await serveOAuthFixture({ consentPage: true });
    fixtures.push(fx);
    await configureSignedOut(id, fx);
    const as = new URL(fx.authServerUrl).origin;

    await control(fx, 'stop-as');
    await ui.assert({
      name: 'oauth-as-down',
      actions: [{ openView: true }, { clickTreeRowAction: { row: id, action: 'Sign In' } }],
      expect: { notification: `Sign-in to "${id}" failed: the authorization server ${as} could not be reached`, treeRows: [`${id} sign in required`] },
      screenshot: true,
      timeoutMs: 60_000,
    });
    assert.equal(api.registry.get(id)?.state.kind, 'needs-sign-in');
    assert.equal(fx.provider.counters.authorizations, 0, 'no authorization page was served');
    // The whole message on screen (the center shows older notifications collapsed): a picture only.
    await ui.check({
      name: 'oauth-as-down-expanded',
      actions: [{ showNotifications: true }, { click: '.notifications-center .notification-list-item:has-text("could not be reached") .codicon-notifications-expand' }],
      screenshot: true,
    });
    await assertStillWorking();
  });
});
