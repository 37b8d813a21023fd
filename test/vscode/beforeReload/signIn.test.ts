// Runs last in the first session (after beforeReload/tasks.test.ts): signs in to the OAuth demo server that the
// runner started (MCP_TASKS_E2E_OAUTH, a process that outlives the window), configured as a server of
// the user settings would be. afterReload/signIn.test.ts, in the new extension host after the window
// reload, configures the same definition and checks that it connects with the stored tokens without asking.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { uiBridgeOrSkip } from '../bridge';
import { OAUTH_RELOAD_SERVER, oauthFixtureCounters, oauthFixtureUrl, oauthReloadDefinition } from '../oauthE2e';
import { extensionApi, until } from '../util';

suite('Sign in to a remote server (OAuth), before a window reload', () => {
  test('signs in through the browser; the tokens stay in SecretStorage', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const url = oauthFixtureUrl(this);
    const { api } = await extensionApi();
    const state = () => api.registry.get(OAUTH_RELOAD_SERVER)?.state;
    if (!api.registry.get(OAUTH_RELOAD_SERVER)) await api.registry.setDefinitions([...api.config.definitions, oauthReloadDefinition(url)]);
    await until(api, () => state()?.kind === 'needs-sign-in', `${OAUTH_RELOAD_SERVER} to need a sign-in`, 60_000);
    const before = await oauthFixtureCounters(url);
    // The palette command (the tree's inline action is in ui-signIn.test.ts); it resolves when the sign-in ends.
    const signingIn = vscode.commands.executeCommand('mcpTasks.signIn', OAUTH_RELOAD_SERVER);
    await ui.assert({ name: 'oauth-reload-sign-in', actions: [{ externalPage: { urlIncludes: '/authorize', click: '#approve' } }], timeoutMs: 60_000 });
    await signingIn;
    await until(api, () => state()?.kind === 'running', `${OAUTH_RELOAD_SERVER} to run after the sign-in`, 60_000);
    const after = await oauthFixtureCounters(url);
    assert.equal(after.authorizations, before.authorizations + 1);
    assert.equal(after.codeExchanges, before.codeExchanges + 1);
  });
});
