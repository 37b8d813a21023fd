/** Issue 13: the OAuthClientProvider's storage (per server and authorization server), step-up, and the one-shot loopback redirect. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostOAuthProvider, LOOPBACK_REDIRECT_URI, OAUTH_KEY_PREFIX } from '../../../src/core/connection/auth/oauthProvider.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { LoopbackRedirect } from '../../../src/core/connection/auth/loopbackRedirect.js';
import { SignInError } from '../../../src/core/connection/auth/signInError.js';

const AS1 = 'https://as1.example/';
const AS2 = 'https://as2.example/';

function provider(store = new MemorySecretStore(), serverKey = 'user:/s.json#a@https://mcp.example/mcp') {
  const secrets: string[] = [];
  const p = new HostOAuthProvider({ serverKey, store, clientName: 'test' });
  p.setSecretSink((v) => secrets.push(...v));
  return { p, store, secrets };
}

test('tokens and registrations are kept per server and per authorization server; sign-out forgets only that server', async () => {
  const store = new MemorySecretStore();
  const { p, secrets } = provider(store);
  const other = provider(store, 'user:/s.json#b@https://other.example/mcp').p;
  assert.equal(await p.tokens(), undefined, 'nothing before discovery');
  await p.saveDiscoveryState({ authorizationServerUrl: AS1 });
  await p.saveClientInformation({ client_id: 'c1', issuer: AS1 });
  await p.saveTokens({ access_token: 'access-1', token_type: 'bearer', refresh_token: 'refresh-1', issuer: AS1 });
  await other.saveDiscoveryState({ authorizationServerUrl: AS1 });
  await other.saveTokens({ access_token: 'access-other', token_type: 'bearer', issuer: AS1 });
  assert.equal((await p.tokens())?.access_token, 'access-1');
  assert.ok(secrets.includes('access-1') && secrets.includes('refresh-1'), 'the redactor learns the tokens');
  // The server moves to another authorization server: nothing of AS1 is offered there.
  await p.saveDiscoveryState({ authorizationServerUrl: AS2 });
  assert.equal(await p.tokens(), undefined);
  assert.equal(await p.clientInformation(), undefined);
  await p.saveDiscoveryState({ authorizationServerUrl: AS1 });
  assert.equal((await p.clientInformation())?.client_id, 'c1');
  assert.ok([...store.values.keys()].every((k) => k.startsWith(OAUTH_KEY_PREFIX)));
  await p.forget();
  assert.equal(await p.tokens(), undefined);
  assert.equal((await other.tokens())?.access_token, 'access-other', 'the other server keeps its tokens');
});

test('step-up: once a wider scope is required, the refresh token is withheld until tokens carry it', async () => {
  const { p } = provider();
  await p.saveDiscoveryState({ authorizationServerUrl: AS1 });
  await p.saveTokens({ access_token: 'a', token_type: 'bearer', refresh_token: 'r', scope: 'mcp:tools', issuer: AS1 });
  p.requireScope('mcp:tools mcp:admin');
  const t = await p.tokens();
  assert.equal(t?.access_token, 'a', 'the access token still works for the rest');
  assert.equal(t?.refresh_token, undefined);
  await p.saveTokens({ access_token: 'b', token_type: 'bearer', refresh_token: 'r2', scope: 'mcp:admin mcp:tools', issuer: AS1 });
  assert.equal((await p.tokens())?.refresh_token, 'r2');
});

test('without a sign-in running, an authorization is only noted (the connection says "sign-in required")', async () => {
  const { p } = provider();
  assert.equal(p.redirectUrl, LOOPBACK_REDIRECT_URI);
  await p.redirectToAuthorization(new URL('https://as1.example/authorize?scope=a%20b&redirect_uri=x'));
  assert.deepEqual(p.pendingAuthorization, { authorizationServer: 'https://as1.example', scope: 'a b' });
  const opened: string[] = [];
  p.beginSignIn('http://127.0.0.1:5/callback', async (u) => void opened.push(u.href));
  // A stale request (built before the sign-in, for no listener) is not opened.
  await p.redirectToAuthorization(new URL('https://as1.example/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback'));
  await p.redirectToAuthorization(new URL('https://as1.example/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback'));
  assert.equal(opened.length, 1);
  p.endSignIn();
});

test('loopback redirect: one request, state checked, then closed', async () => {
  const r = await LoopbackRedirect.start({ timeoutMs: 60_000 });
  try {
    assert.match(r.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    r.expectState('s1');
    const res = await fetch(`${r.redirectUrl}?code=c1&state=s1`);
    assert.equal(res.status, 200);
    assert.equal(await r.waitForCode(), 'c1');
    const again = await fetch(`${r.redirectUrl}?code=c2&state=s1`).catch(() => undefined);
    assert.ok(!again || again.status === 410, 'a second redirect is not taken');
  } finally {
    r.close();
  }
  const bad = await LoopbackRedirect.start({ timeoutMs: 60_000 });
  try {
    bad.expectState('s1');
    const refused = assert.rejects(bad.waitForCode(), (e) => e instanceof SignInError && e.failure === 'state-mismatch');
    assert.equal((await fetch(`${bad.redirectUrl}?code=c1&state=forged`)).status, 400);
    await refused;
  } finally {
    bad.close();
  }
});
