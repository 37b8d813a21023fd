/**
 * A server that moves to another authorization server: once it refuses our token, the next
 * authorization asks it again which authorization server it uses, registers there anew and
 * never presents what the first one issued.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { HostOAuthProvider } from '../../../src/core/connection/auth/oauthProvider.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { AuthorizationCodeAuth } from '../../../src/core/connection/auth/serverAuth.js';
import { approve, fakeOAuth } from '../../helpers/fakeOAuth.js';

const AS1 = 'https://as1.example';
const AS2 = 'https://as2.example';

test('a refused token makes the next authorization find the server\'s new authorization server, register there and ask for a sign-in there', async () => {
  let current = AS1;
  const world = fakeOAuth({ servers: [AS1, AS2], current: () => current, register: (as) => `client-of-${new URL(as).host}` });
  const provider = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: world.server, store: new MemorySecretStore(), clientName: 't' });
  const signIn = new AuthorizationCodeAuth({ provider, openBrowser: (url) => approve(url), fetchFn: world.fetchFn, timeoutMs: 5_000 });
  await signIn.signIn(world.server);
  assert.equal((await provider.tokens())?.access_token, 'access-1');

  // The server moves to AS2 and refuses the token AS1 issued; the transport's fetch sees that
  // answer, then runs auth() as the SDK transport does on a 401.
  current = AS2;
  const transportFetch = signIn.wrapFetch(async () => new Response('{}', { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }));
  await transportFetch(world.server, { method: 'POST', headers: { authorization: 'Bearer access-1' } });
  const before = world.requests.length;
  assert.equal(await auth(provider, { serverUrl: world.server, fetchFn: world.fetchFn }), 'REDIRECT');

  const after = world.requests.slice(before);
  assert.ok(after.some((r) => r.url.href === `${AS2}/register`), 'registered at the new authorization server');
  assert.ok(!after.some((r) => r.url.origin === AS1 && r.url.pathname === '/token'), 'no refresh at the old one');
  assert.equal(provider.pendingAuthorization?.authorizationServer, AS2, 'the sign-in it asks for is at the new one');
  for (const r of after.filter((q) => q.url.origin === AS2)) {
    assert.ok(!r.body.toString().includes('client-of-as1') && !r.url.search.includes('client-of-as1'), `the old client id never reaches ${r.url.href}`);
  }
  assert.equal(await provider.tokens(), undefined, 'no token of AS1 is offered while AS2 is the server\'s');
});

test('a token refused by the server with a DPoP nonce challenge keeps the discovery (the SDK signs again with the nonce)', async () => {
  const world = fakeOAuth();
  const provider = new HostOAuthProvider({ definitionKey: 'user:s#a', resource: world.server, store: new MemorySecretStore(), clientName: 't' });
  const signIn = new AuthorizationCodeAuth({ provider, openBrowser: (url) => approve(url), fetchFn: world.fetchFn, timeoutMs: 5_000 });
  await signIn.signIn(world.server);
  const nonce = signIn.wrapFetch(async () => new Response('{}', { status: 401, headers: { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'n1' } }));
  await nonce(world.server, { method: 'POST', headers: { authorization: 'DPoP access-1' } });
  assert.ok(await provider.discoveryState());
  const anonymous = signIn.wrapFetch(async () => new Response('{}', { status: 401 }));
  await anonymous(world.server, { method: 'POST' });
  assert.ok(await provider.discoveryState(), 'a 401 to a request without our token refuses no token of ours');
});
