// After the window reload (a new window and extension host on the same code-server, user data and
// browser storage): the server signed in before the reload (beforeReload/signIn.test.ts), configured
// again with the same definition, connects with the tokens kept in SecretStorage — no sign-in asked, no
// new authorization, code exchange or refresh at the authorization server — then signs out.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { uiBridgeOrSkip } from '../bridge';
import { OAUTH_RELOAD_SERVER, oauthFixtureCounters, oauthFixtureUrl, oauthReloadDefinition } from '../oauthE2e';
import { extensionApi, until } from '../util';

suite('Sign in to a remote server (OAuth), after a window reload', () => {
  test('the signed-in server connects with its stored tokens and does not ask again', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const url = oauthFixtureUrl(this);
    const { api } = await extensionApi();
    const before = await oauthFixtureCounters(url);
    const seen: string[] = [];
    const sub = api.registry.onDidChangeState(({ connection, state }) => connection.id === OAUTH_RELOAD_SERVER && seen.push(state.kind));
    try {
      const state = () => api.registry.get(OAUTH_RELOAD_SERVER)?.state;
      assert.equal(state(), undefined, 'not configured yet');
      await api.registry.setDefinitions([...api.config.definitions, oauthReloadDefinition(url)]);
      await until(api, () => state()?.kind === 'running', `${OAUTH_RELOAD_SERVER} to run after the reload`, 60_000).catch((e) => {
        throw new Error(`${e.message}: states ${seen.join(' → ')}`);
      });
      assert.ok(!seen.includes('needs-sign-in'), `never asked for a sign-in: ${seen.join(' → ')}`);
      const after = await oauthFixtureCounters(url);
      assert.deepEqual(
        { authorizations: after.authorizations, codeExchanges: after.codeExchanges, refreshes: after.refreshes },
        { authorizations: before.authorizations, codeExchanges: before.codeExchanges, refreshes: before.refreshes },
        'the access token from before the reload was used as it was',
      );
      const key = await api.tracker.callTool(api.registry.get(OAUTH_RELOAD_SERVER)!, { name: 'whoami' }, {});
      await until(api, () => api.tracker.get(key)?.phase === 'done', 'whoami to finish');
      await ui.assert({ name: 'oauth-after-reload', actions: [{ openView: true }], expect: { treeRows: [`${OAUTH_RELOAD_SERVER} running`] }, screenshot: true, timeoutMs: 30_000 });
      // Whatever was notified since the window opened is in the notification center.
      const s = (await ui.check({ name: 'oauth-after-reload-notifications', actions: [{ showNotifications: true }], timeoutMs: 30_000 })).state;
      assert.ok(!s.notifications.some((n) => n.includes(`"${OAUTH_RELOAD_SERVER}" needs you to sign in`)), `no sign-in notification: ${s.notifications.join(' | ')}`);
    } finally {
      sub.dispose();
      await vscode.commands.executeCommand('mcpTasks.signOut', OAUTH_RELOAD_SERVER).then(undefined, () => undefined);
      await api.registry.setDefinitions(api.config.definitions);
    }
  });
});
