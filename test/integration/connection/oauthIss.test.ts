/**
 * A sign-in at an authorization server that names itself on every redirect (RFC 9207 `iss`,
 * test/fixtures/oauthServer.ts with `iss: true`), through a real connection: the browser round
 * trip signs in; a redirect that names another authorization server (a mix-up) is refused
 * before its code is exchanged, and the connection stays at "sign-in required".
 */
import { after, before, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { authorizationCodeAuthFor } from '../../../src/core/connection/auth/authFactory.js';
import { SignInError } from '../../../src/core/connection/auth/serverAuth.js';
import { followAuthorizationRedirects } from '../../../src/headless/browser.js';
import { serveOAuthFixture, type OAuthFixture } from '../../fixtures/oauthServer.js';
import { httpDefinition, MemoryLog, ScriptedResponders, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

let fx: OAuthFixture;
before(async () => {
  fx = await serveOAuthFixture({ iss: true });
});
after(async () => {
  await fx?.close();
});

async function protectedServer() {
  const ledger = new TaskLedger();
  const store = new MemorySecretStore();
  const registry = new ServerRegistry({
    sides: hostSides(ledger, new ScriptedResponders()),
    logFor: () => new MemoryLog(),
    variablesFor: () => ({ env: process.env }),
    restart: { maxCrashes: 1 },
    authFor: (def) => authorizationCodeAuthFor(def, { store, clientName: 'mcp-tasks-test', openBrowser: (url) => followAuthorizationRedirects(url), timeoutMs: 10_000 }),
  });
  await registry.setDefinitions([httpDefinition('protected', fx.url)]);
  const c = registry.get('protected')!;
  await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
  return { c, dispose: () => (registry.dispose(), ledger.dispose()) };
}

test('the redirect names the authorization server the browser went to: signed in', async () => {
  const { c, dispose } = await protectedServer();
  try {
    await c.signIn();
    assert.equal(c.state.kind, 'running');
    assert.match(textOf(await c.client.callTool({ name: 'whoami', arguments: {} })), /with scopes mcp:tools/);
  } finally {
    dispose();
  }
});

test('the redirect names another authorization server: refused, its code never exchanged', async () => {
  const { c, dispose } = await protectedServer();
  fx.provider.forgedIssuer = 'http://127.0.0.1:1/';
  try {
    const exchanges = fx.provider.counters.codeExchanges;
    await assert.rejects(c.signIn(), (e: unknown) => e instanceof SignInError && e.failure === 'failed' && /another authorization server/.test(e.message));
    assert.equal(fx.provider.counters.codeExchanges, exchanges);
    assert.equal(c.state.kind, 'needs-sign-in');
  } finally {
    fx.provider.forgedIssuer = undefined;
    dispose();
  }
});
