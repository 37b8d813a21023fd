// Sign-in to a remote MCP server, in the real workbench: a demo MCP server protected by
// an OAuth authorization server built with the SDK's server-side helpers (test/fixtures/oauthServer.ts,
// loopback only, with an Approve/Deny page) is configured; the tree shows "sign in required" and a
// notification names the server and the authorization server (screenshot); the inline Sign In action
// opens the authorization page through vscode.env.openExternal (a new tab of the same browser in
// code-server, approved by the runner through the UI bridge); the tokens are stored (a new
// connection connects without asking; the true window reload is beforeReload/signIn.test.ts with
// afterReload/signIn.test.ts); a tool runs as the tracker's call; Sign Out asks again; signing in
// again opens the browser again; a denied sign-in and a closed page each end with a clear message
// and a still-working extension.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ServerDefinition } from '../../../src/core/config/config';
import type { McpTasksApi } from '../../../src/extension';
import { CC_CLIENT_ID, serveOAuthFixture, type OAuthFixture } from '../../fixtures/oauthServer';
import { uiBridgeOrSkip } from '../bridge';
import { reportIssuedSecrets } from '../oauthE2e';
import { apiWithServersRunning, cleanUpAfterEachTest, hideNotificationCenter, until } from '../util';

const NAME = 'oauth-demo';
/** The client secret the authorization server refuses (it must not reach a log either). */
const WRONG_SECRET = 'not-the-secret-9a8b7c';
let api: McpTasksApi;
let fx: OAuthFixture;

suite('Sign in to a remote server (OAuth)', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    api = await apiWithServersRunning('demo');
    fx = await serveOAuthFixture({ consentPage: true });
  });
  suiteTeardown(async function () {
    this.timeout(60_000);
    if (api) {
      await vscode.commands.executeCommand('mcpTasks.signOut', NAME).then(undefined, () => undefined);
      await api.registry.setDefinitions(api.config.definitions);
    }
    if (fx) reportIssuedSecrets([...fx.provider.issued, WRONG_SECRET]);
    await fx?.close();
  });
  cleanUpAfterEachTest(() => api);

  test('sign in through the browser, tokens kept across a reconnect, a tool runs, sign out, sign in again', async function () {
    this.timeout(240_000);
    const ui = uiBridgeOrSkip(this);
    const def: ServerDefinition = { id: NAME, name: NAME, source: { kind: 'user', file: 'test settings (oauth)' }, transport: { type: 'http', url: fx.url, headers: {} }, inputs: [] };
    const as = new URL(fx.authServerUrl).origin;
    const state = () => api.registry.get(NAME)?.state;

    // Configured: the server answers 401 → "sign in required", with a notification naming both.
    // (A retry of this test finds the server still signed in: sign out first.)
    if (api.registry.get(NAME)) await vscode.commands.executeCommand('mcpTasks.signOut', NAME);
    await api.registry.setDefinitions([...api.config.definitions, def]);
    await until(api, () => state()?.kind === 'needs-sign-in', `${NAME} to need a sign-in`);
    const s = state();
    assert.equal(s?.kind === 'needs-sign-in' ? s.authorizationServer : '', as);
    await ui.assert({
      name: 'oauth-sign-in-required',
      actions: [{ openView: true }],
      expect: { treeRows: [`${NAME} sign in required`], notification: `MCP server "${NAME}" needs you to sign in at ${as}` },
      screenshot: true,
      timeoutMs: 30_000,
    });

    // Sign In (inline action) → the browser page → Approve → running.
    const authorizations = fx.provider.counters.authorizations;
    await ui.assert({
      name: 'oauth-approve',
      actions: [{ clickTreeRowAction: { row: NAME, action: 'Sign In' } }, { externalPage: { urlIncludes: '/authorize', click: '#approve' } }],
      timeoutMs: 60_000,
    });
    await until(api, () => state()?.kind === 'running', `${NAME} to run after the sign-in`, 60_000);
    assert.equal(fx.provider.counters.authorizations, authorizations + 1);
    await ui.assert({ name: 'oauth-signed-in', expect: { treeRows: [`${NAME} running`], notification: `Signed in to "${NAME}"` }, screenshot: true, timeoutMs: 30_000 });

    // A tool call through the tracker (what "Run Tool…" does).
    const connection = api.registry.get(NAME)!;
    const key = await api.tracker.callTool(connection, { name: 'whoami' }, {});
    await until(api, () => api.tracker.get(key)?.phase === 'done', 'whoami to finish');

    // "Reload": a new connection for the same definition reads the stored tokens and does not ask.
    await api.registry.setDefinitions(api.config.definitions);
    await api.registry.setDefinitions([...api.config.definitions, def]);
    await until(api, () => state()?.kind === 'running', `${NAME} to run again without a sign-in`, 60_000);
    assert.equal(fx.provider.counters.authorizations, authorizations + 1, 'no new authorization');

    // Sign Out forgets the tokens and the client registration: it asks again (registering anew on the way).
    const registrations = fx.provider.counters.registrations;
    await vscode.commands.executeCommand('mcpTasks.signOut', NAME);
    await until(api, () => state()?.kind === 'needs-sign-in', `${NAME} to need a sign-in after Sign Out`);

    // Sign in again: the browser opens again, Approve → running.
    await ui.assert({
      name: 'oauth-sign-in-again',
      actions: [{ openView: true }, { clickTreeRowAction: { row: NAME, action: 'Sign In' } }, { externalPage: { urlIncludes: '/authorize', click: '#approve' } }],
      timeoutMs: 60_000,
    });
    await until(api, () => state()?.kind === 'running', `${NAME} to run after signing in again`, 60_000);
    const counters = JSON.stringify({ authorizations, registrations, now: fx.provider.counters });
    assert.equal(fx.provider.counters.authorizations, authorizations + 2, `a second authorization: ${counters}`);
    assert.equal(fx.provider.counters.registrations, registrations + 1, `a new client registration after Sign Out: ${counters}`);
    await ui.assert({ name: 'oauth-signed-in-again', expect: { treeRows: [`${NAME} running`] }, screenshot: true, timeoutMs: 30_000 });
    const again = await api.tracker.callTool(api.registry.get(NAME)!, { name: 'whoami' }, {});
    await until(api, () => api.tracker.get(again)?.phase === 'done', 'whoami to finish after signing in again');
  });

  test('a denied sign-in and a closed page each end with a clear message; the server waits, the others run', async function () {
    this.timeout(240_000);
    const ui = uiBridgeOrSkip(this);
    const def: ServerDefinition = { id: NAME, name: NAME, source: { kind: 'user', file: 'test settings (oauth)' }, transport: { type: 'http', url: fx.url, headers: {} }, inputs: [] };
    const state = () => api.registry.get(NAME)?.state;
    if (!api.registry.get(NAME)) await api.registry.setDefinitions([...api.config.definitions, def]);
    await vscode.commands.executeCommand('mcpTasks.signOut', NAME);
    await until(api, () => state()?.kind === 'needs-sign-in', `${NAME} to need a sign-in`);

    // Deny on the authorization page → "not granted", naming the server and the answer; no tokens.
    const exchanges = fx.provider.counters.codeExchanges;
    await ui.assert({
      name: 'oauth-denied',
      actions: [{ openView: true }, { clickTreeRowAction: { row: NAME, action: 'Sign In' } }, { externalPage: { urlIncludes: '/authorize', click: '#deny' } }],
      expect: { notification: `Sign-in to "${NAME}" was not granted: the authorization server answered access_denied.`, treeRows: [`${NAME} sign in required`] },
      screenshot: true,
      timeoutMs: 60_000,
    });
    assert.equal(state()?.kind, 'needs-sign-in');
    assert.equal(fx.provider.counters.codeExchanges, exchanges, 'no code was exchanged');
    // The whole message on screen (the center shows older notifications collapsed): a picture only.
    await ui.check({
      name: 'oauth-denied-expanded',
      actions: [{ showNotifications: true }, { click: '.notifications-center .notification-list-item:has-text("was not granted") .codicon-notifications-expand' }],
      screenshot: true,
    });

    // The user closes the authorization page, then cancels the sign-in → a clear message.
    // The center is opened afresh, at its newest row (the sign-in's, with Cancel): left open, it keeps the row
    // it had focused in place, and a notification added above it is drawn out of view, its Cancel not in the page.
    await hideNotificationCenter();
    await ui.assert({
      name: 'oauth-cancelled',
      actions: [
        { openView: true },
        { clickTreeRowAction: { row: NAME, action: 'Sign In' } },
        { externalPage: { urlIncludes: '/authorize', close: true } },
        { showNotifications: true },
        { click: '.notification-list-item .monaco-button:has-text("Cancel")' },
      ],
      expect: { notification: `Sign-in to "${NAME}" was cancelled.` },
      screenshot: true,
      timeoutMs: 60_000,
    });
    assert.equal(state()?.kind, 'needs-sign-in');

    // The extension still works: another server runs a tool.
    const demo = api.registry.get('demo')!;
    assert.equal(demo.state.kind, 'running', 'the other servers keep running');
    const key = await api.tracker.callTool(demo, { name: 'quick_echo', execution: { taskSupport: 'optional' } }, { text: 'still working', delayMs: 10 });
    await until(api, () => !!api.tracker.get(key)?.outcome, 'quick_echo on demo to finish');
  });

  test('client credentials the authorization server refuses: "credentials refused" naming the server and the authorization server, with the ways to fix it', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const id = 'cc-refused';
    const def: ServerDefinition = {
      id,
      name: id,
      source: { kind: 'user', file: 'test settings (oauth)' },
      transport: { type: 'http', url: fx.url, headers: {}, oauth: { issuer: fx.authServerUrl, clientId: CC_CLIENT_ID, clientSecret: WRONG_SECRET, scope: 'mcp:tools' } },
      inputs: [],
    };
    try {
      await api.registry.setDefinitions([...api.config.definitions, def]);
      await until(api, () => api.registry.get(id)?.state.kind === 'credentials-rejected', `${id} to show its refused credentials`, 60_000);
      await ui.assert({
        name: 'oauth-credentials-refused',
        actions: [{ openView: true }],
        expect: { treeRows: [`${id} credentials refused`], notification: `the authorization server ${fx.authServerUrl} refused the client credentials of "${id}" (invalid_client)` },
        screenshot: true,
        timeoutMs: 30_000,
      });
      const n = (await ui.state()).notifications.find((x) => x.includes(`client credentials of "${id}"`)) ?? '';
      assert.match(n, /check the client id and its secret or private key in test settings \(oauth\)/);
      assert.equal(api.registry.get('demo')?.state.kind, 'running', 'the other servers keep running');
    } finally {
      await api.registry.setDefinitions(api.config.definitions);
    }
  });
});
