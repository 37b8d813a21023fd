/**
 * Which authorization server a sign-in's redirect, registration and tokens belong to: the `iss`
 * of the redirect (RFC 9207) checked by the SDK, an error answer's words shown only when that
 * `iss` is right, a pre-registered client offered to one authorization server only, and the
 * record of one authorization server written whole by each update.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HostOAuthProvider } from '../../../src/core/connection/auth/oauthProvider.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { LoopbackRedirect } from '../../../src/core/connection/auth/loopbackRedirect.js';
import { AuthorizationCodeAuth, SignInError } from '../../../src/core/connection/auth/serverAuth.js';
import { approve, fakeOAuth } from '../../helpers/fakeOAuth.js';

const AS = 'https://as.example';

function signInWith(world: ReturnType<typeof fakeOAuth>, browser: (url: URL) => Promise<void>, store = new MemorySecretStore()) {
  const provider = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: world.server, store, clientName: 't' });
  const auth = new AuthorizationCodeAuth({ provider, openBrowser: browser, fetchFn: world.fetchFn, timeoutMs: 5_000 });
  return { provider, signIn: () => auth.signIn(world.server) };
}

const tokenRequests = (world: ReturnType<typeof fakeOAuth>) => world.requests.filter((r) => r.url.pathname === '/token');

describe('the loopback redirect hands on the iss it carried', () => {
  test('with the code', async () => {
    const r = await LoopbackRedirect.start({ timeoutMs: 60_000 });
    try {
      r.expectState('s1');
      await (await fetch(`${r.redirectUrl}?code=c1&state=s1&iss=${encodeURIComponent(AS)}`)).body?.cancel();
      assert.deepEqual(await r.waitForRedirect(), { kind: 'code', code: 'c1', iss: AS });
    } finally {
      r.close();
    }
  });

  test('with an error answer', async () => {
    const r = await LoopbackRedirect.start({ timeoutMs: 60_000 });
    try {
      r.expectState('s1');
      await (await fetch(`${r.redirectUrl}?error=access_denied&error_description=no&state=s1&iss=${encodeURIComponent(AS)}`)).body?.cancel();
      assert.deepEqual(await r.waitForRedirect(), { kind: 'error', error: 'access_denied', description: 'no', iss: AS });
    } finally {
      r.close();
    }
  });
});

describe('RFC 9207: the redirect names the authorization server it came from', () => {
  test('an authorization server that always sends iss: the sign-in completes with it', async () => {
    const world = fakeOAuth({ issParameterSupported: true });
    const { provider, signIn } = signInWith(world, (url) => approve(url, { iss: AS }));
    await signIn();
    assert.equal((await provider.tokens())?.access_token, 'access-1');
  });

  test('a redirect naming another authorization server (a mix-up): refused before the code goes anywhere', async () => {
    const world = fakeOAuth({ issParameterSupported: true });
    const { provider, signIn } = signInWith(world, (url) => approve(url, { iss: 'https://evil.example' }));
    await assert.rejects(signIn(), (e: unknown) => e instanceof SignInError && e.failure === 'failed' && /another authorization server/.test(e.message) && e.message.includes('https://evil.example'));
    assert.deepEqual(tokenRequests(world), [], 'the code was never sent to a token endpoint');
    assert.equal(await provider.tokens(), undefined);
  });

  test('a redirect without iss from a server that said it always sends one: refused', async () => {
    const world = fakeOAuth({ issParameterSupported: true });
    const { signIn } = signInWith(world, (url) => approve(url));
    await assert.rejects(signIn(), (e: unknown) => e instanceof SignInError && /another authorization server/.test(e.message));
    assert.deepEqual(tokenRequests(world), []);
  });

  test('an error answer is shown in the authorization server\'s words only when its iss is right', async () => {
    const denied = fakeOAuth({ issParameterSupported: true });
    await assert.rejects(
      signInWith(denied, (url) => approve(url, { error: 'access_denied', errorDescription: 'the admin said no', iss: AS })).signIn(),
      (e: unknown) => e instanceof SignInError && e.failure === 'denied' && /access_denied: the admin said no/.test(e.message),
    );
    const mixedUp = fakeOAuth({ issParameterSupported: true });
    await assert.rejects(
      signInWith(mixedUp, (url) => approve(url, { error: 'access_denied', errorDescription: 'call +1 555 0100 to unlock', iss: 'https://evil.example' })).signIn(),
      (e: unknown) => e instanceof SignInError && e.failure === 'failed' && !e.message.includes('555') && !e.message.includes('access_denied'),
    );
  });
});

describe('what one authorization server issued is offered to no other', () => {
  const metadataOf = (issuer: string) => ({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] });

  test('a pre-registered client goes to the first authorization server it is offered to, and never to another', async () => {
    const p = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: 'https://mcp.example/mcp', store: new MemorySecretStore(), clientName: 't', preRegistered: { client_id: 'pre', client_secret: 'pre-secret' } });
    await p.saveDiscoveryState({ authorizationServerUrl: 'https://as1.example', authorizationServerMetadata: metadataOf('https://as1.example') });
    assert.deepEqual(await p.clientInformation({ issuer: 'https://as1.example' }), { client_id: 'pre', client_secret: 'pre-secret', issuer: 'https://as1.example' });
    await p.saveDiscoveryState({ authorizationServerUrl: 'https://as2.example', authorizationServerMetadata: metadataOf('https://as2.example') });
    assert.equal(await p.clientInformation({ issuer: 'https://as2.example' }), undefined);
    assert.equal(await p.clientInformation(), undefined);
  });

  test('a pre-registered client that names its authorization server goes only there', async () => {
    const p = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: 'https://mcp.example/mcp', store: new MemorySecretStore(), clientName: 't', preRegistered: { client_id: 'pre', issuer: 'https://as2.example' } });
    await p.saveDiscoveryState({ authorizationServerUrl: 'https://as1.example', authorizationServerMetadata: metadataOf('https://as1.example') });
    assert.equal(await p.clientInformation({ issuer: 'https://as1.example' }), undefined);
  });

  test('updates of one record at the same time keep each other (registration, tokens, verifier)', async () => {
    const p = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: 'https://mcp.example/mcp', store: new MemorySecretStore(), clientName: 't' });
    await p.saveDiscoveryState({ authorizationServerUrl: AS, authorizationServerMetadata: metadataOf(AS) });
    await Promise.all([p.saveClientInformation({ client_id: 'c1', issuer: AS }), p.saveTokens({ access_token: 'a', token_type: 'bearer', issuer: AS }), p.saveCodeVerifier('v')]);
    assert.equal((await p.clientInformation())?.client_id, 'c1');
    assert.equal((await p.tokens())?.access_token, 'a');
    assert.equal(await p.codeVerifier(), 'v');
  });
});
