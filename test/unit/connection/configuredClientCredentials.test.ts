/**
 * The ServerAuth of a server with an mcp.json `"oauth"` block. The SDK provider is made
 * from the resolved credentials (client secret or private-key JWT, bound to the issuer), kept
 * while they do not change, and every secret and token it sees goes to the log's redactor.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientCredentialsProvider, OAuthError, OAuthErrorCode, PrivateKeyJwtProvider } from '@modelcontextprotocol/client';
import { serverAuthFor } from '../../../src/core/connection/auth/authFactory.js';
import { ConfiguredClientCredentialsAuth } from '../../../src/core/connection/auth/configuredClientCredentials.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { SignInError } from '../../../src/core/connection/auth/serverAuth.js';
import type { ServerDefinition, TransportDefinition } from '../../../src/core/config/config.js';
import { oauthErrorMessage } from '../../../src/core/connection/startErrors.js';

const ISSUER = 'https://auth.example.com/';
const http = (oauth?: Extract<TransportDefinition, { type: 'http' }>['oauth']): TransportDefinition => ({ type: 'http', url: 'https://mcp.example.com/mcp', headers: {}, ...(oauth ? { oauth } : {}) });
const def = (transport: TransportDefinition): ServerDefinition => ({ id: 's', name: 's', source: { kind: 'user', file: 'settings' }, transport, inputs: [] });
const options = { store: new MemorySecretStore(), clientName: 'test', openBrowser: async () => assert.fail('no browser') };

describe('client credentials configured in mcp.json', () => {
  test('serverAuthFor: the "oauth" block gives a non-interactive auth; without it the browser sign-in', () => {
    const cc = serverAuthFor(def(http({ clientId: 'a', clientSecret: 's', issuer: ISSUER })), options);
    assert.ok(cc instanceof ConfiguredClientCredentialsAuth);
    assert.equal(cc.interactive, false);
    assert.equal(serverAuthFor(def(http()), options)?.interactive, true);
    assert.equal(serverAuthFor(def({ type: 'stdio', command: 'x', args: [], env: {} }), options), undefined);
  });

  test('before the transport is resolved there is no provider and no sign-in, only a typed error', async () => {
    const auth = new ConfiguredClientCredentialsAuth('test');
    assert.throws(() => auth.provider, SignInError);
    await assert.rejects(auth.signIn('https://mcp.example.com/mcp'), SignInError);
  });

  test('a client secret: the SDK ClientCredentialsProvider, bound to the issuer; kept while the credentials are the same', async () => {
    const auth = new ConfiguredClientCredentialsAuth('test');
    const sunk: string[] = [];
    auth.setSecretSink((v) => sunk.push(...v));
    auth.useResolved(http({ clientId: 'a', clientSecret: 'secret-value-1', issuer: ISSUER, scope: 'mcp:tools' }));
    const p = auth.provider;
    assert.ok(p instanceof ClientCredentialsProvider);
    assert.equal((await p.clientInformation())?.issuer, ISSUER);
    assert.equal(p.clientMetadata.scope, 'mcp:tools');
    assert.ok(sunk.includes('secret-value-1'));
    auth.useResolved(http({ clientId: 'a', clientSecret: 'secret-value-1', issuer: ISSUER, scope: 'mcp:tools' }));
    assert.equal(auth.provider, p, 'same credentials: same provider (its token kept)');
    await p.saveTokens({ access_token: 'access-token-1234', token_type: 'bearer' });
    assert.ok(sunk.includes('access-token-1234'), 'tokens go to the redactor');
    assert.equal((await auth.provider.tokens())?.access_token, 'access-token-1234');
    auth.useResolved(http({ clientId: 'a', clientSecret: 'secret-value-2', issuer: ISSUER }));
    assert.notEqual(auth.provider, p, 'new credentials: a new provider');
  });

  test('a private key: the SDK PrivateKeyJwtProvider', () => {
    const auth = new ConfiguredClientCredentialsAuth('test');
    const sunk: string[] = [];
    auth.setSecretSink((v) => sunk.push(...v));
    const pem = '-----BEGIN PRIVATE KEY-----\nMIG…\n-----END PRIVATE KEY-----';
    auth.useResolved(http({ clientId: 'a', privateKey: pem, algorithm: 'ES256', issuer: ISSUER }));
    assert.ok(auth.provider instanceof PrivateKeyJwtProvider);
    assert.ok(sunk.includes(pem));
  });

  test('an OAuth error answer with no description still reads as something', () => {
    assert.match(oauthErrorMessage(new OAuthError(OAuthErrorCode.InvalidClient, ''))!, /^the authorization server answered "invalid_client" \(the client id or its secret\/key was refused\)$/);
    assert.equal(oauthErrorMessage(new Error('x')), undefined);
  });
});
