/**
 * DPoP (RFC 9449): an authorization server that takes DPoP proofs gets one on the sign-in's token
 * request, signed with a key kept beside the tokens (so a DPoP-bound token still works after a
 * window reload); one that does not sees the Bearer flow unchanged. Sign Out forgets the key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { HostOAuthProvider } from '../../../src/core/connection/auth/oauthProvider.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { AuthorizationCodeAuth } from '../../../src/core/connection/auth/serverAuth.js';
import { approve, fakeOAuth } from '../../helpers/fakeOAuth.js';

async function signedIn(world: ReturnType<typeof fakeOAuth>, store: MemorySecretStore) {
  const provider = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: world.server, store, clientName: 't' });
  await new AuthorizationCodeAuth({ provider, openBrowser: (url) => approve(url), fetchFn: world.fetchFn, timeoutMs: 5_000 }).signIn(world.server);
  return provider;
}

test('an authorization server that takes DPoP: the token request carries a proof of a kept key, and the token is DPoP-bound', async () => {
  const world = fakeOAuth({ dpopAlgs: ['ES256'] });
  const store = new MemorySecretStore();
  const provider = await signedIn(world, store);
  const tokenRequest = world.requests.find((r) => r.url.pathname === '/token');
  const proof = tokenRequest?.headers.get('dpop');
  assert.ok(proof, 'a DPoP header on the token request');
  const header = decodeProtectedHeader(proof);
  assert.equal(header.typ, 'dpop+jwt');
  const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, 'ES256'));
  assert.equal(payload.htm, 'POST');
  assert.equal(payload.htu, 'https://as.example/token');
  assert.equal((await provider.tokens())?.token_type, 'DPoP');

  // A reload: a new provider over the same store signs with the same key.
  const reloaded = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: world.server, store, clientName: 't' });
  assert.equal((await reloaded.dpop())?.thumbprint, await calculateJwkThumbprint(header.jwk as JWK, 'sha256'));
  assert.ok(![...store.values.keys()].some((k) => !k.startsWith('mcpTasks.oauth/')), 'the key lives with the other OAuth secrets');

  await reloaded.forget();
  assert.equal(store.values.size, 0, 'Sign Out forgets the key too');
});

test('an authorization server that does not take DPoP (or not with ES256): no proof anywhere, Bearer as before', async () => {
  for (const dpopAlgs of [undefined, ['RS256']]) {
    const world = fakeOAuth({ dpopAlgs });
    const provider = await signedIn(world, new MemorySecretStore());
    assert.ok(world.requests.every((r) => !r.headers.has('dpop')), `no DPoP header (${dpopAlgs})`);
    assert.equal(await provider.dpop(), undefined);
    assert.equal((await provider.tokens())?.token_type, 'Bearer');
  }
});
