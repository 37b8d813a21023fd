/** The OAuthClientProvider's storage (per server and authorization server) and the one-shot loopback redirect. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { HostOAuthProvider, LOOPBACK_REDIRECT_URI, OAUTH_KEY_PREFIX } from '../../../src/core/connection/auth/oauthProvider.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { LoopbackRedirect } from '../../../src/core/connection/auth/loopbackRedirect.js';
import { SignInError } from '../../../src/core/connection/auth/signInError.js';
import { SignInProvider } from '../../../src/core/connection/auth/signInProvider.js';
import { authorizationCodeAuthFor } from '../../../src/core/connection/auth/authFactory.js';
import { assertBrowsable, AuthorizationCodeAuth } from '../../../src/core/connection/auth/serverAuth.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { fakeOAuth } from '../../helpers/fakeOAuth.js';

const AS1 = 'https://as1.example/';
const AS2 = 'https://as2.example/';

function provider(store = new MemorySecretStore(), definitionKey = 'user:/s.json#a', resource = 'https://mcp.example/mcp') {
  const secrets: string[] = [];
  const p = new HostOAuthProvider({ definitionKey, resource, store, clientName: 'test' });
  p.setSecretSink((v) => secrets.push(...v));
  return { p, store, secrets };
}

test('tokens and registrations are kept per server and per authorization server; sign-out forgets only that server', async () => {
  const store = new MemorySecretStore();
  const { p, secrets } = provider(store);
  const other = provider(store, 'user:/s.json#b', 'https://other.example/mcp').p;
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

test('tokens are kept and found under the issuer the SDK names, also where the resource names its authorization server without the trailing slash of that issuer', async () => {
  const { p, store } = provider();
  const named = 'https://as1.example';
  await p.saveDiscoveryState({ authorizationServerUrl: named, authorizationServerMetadata: { issuer: AS1, authorization_endpoint: `${AS1}authorize`, token_endpoint: `${AS1}token`, response_types_supported: ['code'] } });
  // What auth() does after a token exchange: the stamp and the context both name the issuer.
  await p.saveTokens({ access_token: 'a', token_type: 'bearer', issuer: AS1 }, { issuer: AS1 });
  assert.equal((await p.tokens())?.access_token, 'a', 'the transport reads them back (no context)');
  assert.equal((await p.tokens({ issuer: AS1 }))?.access_token, 'a');
  assert.equal((await p.tokens({ issuer: AS2 })), undefined, 'never for another authorization server');
  assert.ok([...store.values.keys()].some((k) => k.endsWith(`|${AS1}`)));
});

test('without a sign-in running, an authorization is only noted (the connection says "sign-in required")', async () => {
  const { p } = provider();
  assert.equal(p.redirectUrl, LOOPBACK_REDIRECT_URI);
  await p.redirectToAuthorization(new URL('https://as1.example/authorize?scope=a%20b&redirect_uri=x'));
  assert.deepEqual(p.pendingAuthorization, { authorizationServer: 'https://as1.example', scope: 'a b' });
  const opened: string[] = [];
  p.beginSignIn();
  assert.equal(p.pendingAuthorization, undefined, 'a sign-in starts from nothing pending');
  const own = new SignInProvider(p, 'http://127.0.0.1:5/callback', async (u) => void opened.push(u.href));
  // The server's provider sends the browser nowhere, whatever the request's redirect_uri (an
  // auth() of the transport built before or during the sign-in); the sign-in's own view does.
  await p.redirectToAuthorization(new URL('https://as1.example/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback'));
  await p.redirectToAuthorization(new URL('https://as1.example/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback'));
  assert.equal(p.pendingAuthorization, undefined, 'nor notes it while the sign-in runs');
  assert.equal(p.redirectUrl, LOOPBACK_REDIRECT_URI);
  assert.equal(own.redirectUrl, 'http://127.0.0.1:5/callback');
  await own.redirectToAuthorization(new URL('https://as1.example/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback'));
  assert.equal(opened.length, 1);
  p.endSignIn();
});

test('loopback redirect: one request with the right state taken, wrong or missing states answered 400 and ignored, then closed', async () => {
  const r = await LoopbackRedirect.start({ timeoutMs: 60_000 });
  try {
    assert.match(r.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    r.expectState('s1');
    const res = await fetch(`${r.redirectUrl}?code=c1&state=s1`);
    assert.equal(res.status, 200);
    assert.deepEqual(await r.waitForRedirect(), { kind: 'code', code: 'c1' });
    const again = await fetch(`${r.redirectUrl}?code=c2&state=s1`).catch(() => undefined);
    assert.ok(!again || again.status === 410, 'a second redirect is not taken');
  } finally {
    r.close();
  }
  const bad = await LoopbackRedirect.start({ timeoutMs: 60_000 });
  try {
    bad.expectState('s1');
    let settled = false;
    const waiting = bad.waitForRedirect().finally(() => (settled = true));
    // A wrong, a missing and an empty state: each answered 400 and ignored, the sign-in still waits.
    for (const query of ['code=c1&state=forged', 'code=c1', 'code=c1&state=']) assert.equal((await fetch(`${bad.redirectUrl}?${query}`)).status, 400, query);
    assert.equal(settled, false, 'a wrong state does not end the sign-in');
    assert.equal((await fetch(`${bad.redirectUrl}?code=c2&state=s1`)).status, 200);
    assert.deepEqual(await waiting, { kind: 'code', code: 'c2' });
  } finally {
    bad.close();
  }
  const onlyWrong = await LoopbackRedirect.start({ timeoutMs: 300 });
  try {
    onlyWrong.expectState('s1');
    const refused = assert.rejects(onlyWrong.waitForRedirect(), (e) => e instanceof SignInError && e.failure === 'state-mismatch' && /1 redirect ignored/.test(e.message));
    assert.equal((await fetch(`${onlyWrong.redirectUrl}?code=c1&state=forged`)).status, 400);
    await refused;
  } finally {
    onlyWrong.close();
  }
});

describe('OAuth secrets bound to the resolved server URL', () => {
  const definitionKey = 'workspace:/repo/.vscode/mcp.json#remote';
  const remote = (url: string): ServerDefinition => ({
    id: 'remote',
    name: 'remote',
    source: { kind: 'workspace', file: '/repo/.vscode/mcp.json', folder: '/repo' },
    transport: { type: 'http', url, headers: {} },
    inputs: [],
  });

  test('a URL written with ${env:…} keeps tokens per resolved URL: where it resolves next, none of them are offered', async () => {
    const store = new MemorySecretStore();
    const auth = authorizationCodeAuthFor(remote('https://${env:MCP_HOST}/mcp'), { store, clientName: 't', openBrowser: async () => undefined })!;
    const provider = auth.provider as HostOAuthProvider;
    auth.useResolved?.({ type: 'http', url: 'https://mcp.good.example/mcp', headers: {} });
    await provider.saveDiscoveryState({ authorizationServerUrl: AS1 });
    await provider.saveTokens({ access_token: 'token-for-good', token_type: 'bearer', issuer: AS1 });
    assert.equal((await provider.tokens())?.access_token, 'token-for-good');

    auth.useResolved?.({ type: 'http', url: 'https://attacker.example/mcp', headers: {} });
    assert.equal(await provider.tokens(), undefined, 'not sent to the URL it resolves to now');
    assert.equal(await provider.discoveryState(), undefined);

    auth.useResolved?.({ type: 'http', url: 'https://mcp.good.example/mcp', headers: {} });
    assert.equal((await provider.tokens())?.access_token, 'token-for-good', 'back at the first URL: its own tokens');
  });

  test('Sign Out forgets every URL of the definition, and nothing of a definition whose key merely starts the same', async () => {
    const store = new MemorySecretStore();
    const mine = new HostOAuthProvider({ definitionKey, resource: 'https://a.example/mcp', store, clientName: 't' });
    const lookalike = new HostOAuthProvider({ definitionKey: `${definitionKey}@https:`, resource: '//a.example/mcp', store, clientName: 't' });
    for (const p of [mine, lookalike]) {
      await p.saveDiscoveryState({ authorizationServerUrl: AS1 });
      await p.saveTokens({ access_token: 'x', token_type: 'bearer', issuer: AS1 });
    }
    mine.bindResource('https://b.example/mcp');
    await mine.saveDiscoveryState({ authorizationServerUrl: AS1 });
    await mine.saveTokens({ access_token: 'y', token_type: 'bearer', issuer: AS1 });
    await mine.forget();
    mine.bindResource('https://a.example/mcp');
    assert.equal(await mine.tokens(), undefined, 'the first URL forgotten too');
    assert.equal((await lookalike.tokens())?.access_token, 'x', 'the other definition keeps its tokens');
  });

  test('an unbound provider (URL not resolved yet) reads nothing and keeps nothing', async () => {
    const store = new MemorySecretStore();
    const p = new HostOAuthProvider({ definitionKey, store, clientName: 't' });
    assert.equal(await p.tokens(), undefined);
    await assert.rejects(p.saveDiscoveryState({ authorizationServerUrl: AS1 }), /before the server URL was resolved/);
    assert.equal(store.values.size, 0);
  });
});

describe('the browser opens only http(s)', () => {
  test('assertBrowsable refuses every other scheme', () => {
    for (const u of ['blob:https://as.example/authorize', 'file:///etc/passwd', 'vscode://publisher.ext/authorize', 'command:workbench.action.terminal.new', 'javascript:alert(1)']) {
      assert.throws(() => assertBrowsable(new URL(u)), SignInError, u);
    }
    assertBrowsable(new URL('https://as.example/authorize'));
    assertBrowsable(new URL('http://127.0.0.1:9/authorize'));
  });

  test('an authorization server whose authorization endpoint is blob:https://… gets no browser opened: the sign-in fails, naming the scheme', async () => {
    const { server, fetchFn } = fakeOAuth({ authorizationEndpoint: 'blob:https://as.example/authorize' });
    const opened: string[] = [];
    const store = new MemorySecretStore();
    const provider = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: server, store, clientName: 't' });
    const auth = new AuthorizationCodeAuth({ provider, openBrowser: async (url) => void opened.push(url.href), timeoutMs: 2_000, fetchFn });
    await assert.rejects(auth.signIn(server), (e: unknown) => e instanceof SignInError && /"blob:".*only http and https/.test(e.message));
    assert.deepEqual(opened, []);
  });
});

describe('a sign-in while the transport authorizes on its own', () => {
  test('an authorization the transport starts during a sign-in (another request\'s 401) neither sends the browser again nor takes the sign-in\'s place', { timeout: 20_000 }, async () => {
    /** What each authorization code was issued for: the PKCE challenge and the client. */
    const issued = new Map<string, { challenge: string | null; client: string | null }>();
    let registrations = 0;
    const { server, fetchFn } = fakeOAuth({
      register: () => `client-${++registrations}`,
      token: (body) => {
        const grant = issued.get(body.get('code') ?? '');
        const challenge = createHash('sha256').update(body.get('code_verifier') ?? '').digest('base64url');
        return !!grant && grant.challenge === challenge && grant.client === body.get('client_id');
      },
    });
    const provider = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: server, store: new MemorySecretStore(), clientName: 't' });
    const opened: URL[] = [];
    let transportAuth: Promise<string> | undefined;
    const signIn = new AuthorizationCodeAuth({
      provider,
      fetchFn,
      timeoutMs: 5_000,
      openBrowser: async (url) => {
        opened.push(url);
        // While the browser is open, another request of the connection gets a 401: the transport runs auth() on the server's provider.
        if (!transportAuth) {
          transportAuth = auth(provider, { serverUrl: server, fetchFn });
          await transportAuth;
        }
        // The authorization server approves; the browser follows its redirect to the loopback listener.
        const code = `code-${opened.length}`;
        issued.set(code, { challenge: url.searchParams.get('code_challenge'), client: url.searchParams.get('client_id') });
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        const answer = await fetch(back);
        await answer.body?.cancel();
      },
    });
    await signIn.signIn(server);
    assert.equal(await transportAuth, 'REDIRECT', "the transport's own authorization only notes that a sign-in is wanted");
    assert.equal(opened.length, 1, 'the browser opened once, for the sign-in');
    assert.equal((await provider.tokens())?.access_token, 'access-1');
  });
});
