/**
 * Enterprise-managed authorization and workload identity through the SDK's `auth()`, against an
 * enterprise IdP and an authorization server answered in memory: the grants they send, the token
 * they get, a refused workload assertion not sent twice, and every secret on the way redacted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auth as sdkAuth } from '@modelcontextprotocol/client';
import { crossAppAccessAuth, workloadIdentityAuth } from '../../../src/core/connection/auth/machineAuth.js';
import { clientCredentialsAuth } from '../../../src/core/connection/auth/authFactory.js';
import { SignInError } from '../../../src/core/connection/auth/serverAuth.js';
import { fakeOAuth, RESOURCE } from '../../helpers/fakeOAuth.js';

const IDP = 'https://idp.example';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The fake authorization server (fakeOAuth) plus an IdP token endpoint that exchanges an ID token for an ID-JAG. */
function world(token?: (body: URLSearchParams, headers: Headers) => boolean) {
  const oauth = fakeOAuth({ token: (body, _as, headers) => token?.(body, headers) ?? true });
  const idpRequests: URLSearchParams[] = [];
  const fetchFn = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    if (String(input) === `${IDP}/token`) {
      const body = new URLSearchParams(String(init?.body));
      idpRequests.push(body);
      return new Response(JSON.stringify({ access_token: 'id-jag-1', issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }), { headers: { 'content-type': 'application/json' } });
    }
    return oauth.fetchFn(input, init);
  };
  const tokenRequests = () => oauth.requests.filter((r) => r.url.pathname === '/token');
  return { fetchFn, idpRequests, tokenRequests };
}

test('enterprise-managed: the ID token becomes an ID-JAG for this server at the IdP, and the ID-JAG an access token', async () => {
  const w = world();
  const auth = crossAppAccessAuth({ idp: { tokenEndpoint: `${IDP}/token` }, idToken: () => 'id-token-1', idpClientId: 'idp-client', clientId: 'mcp-client', clientSecret: 'mcp-secret' }, 't', w.fetchFn);
  await auth.signIn(RESOURCE);
  const exchange = w.idpRequests[0];
  assert.equal(exchange?.get('grant_type'), 'urn:ietf:params:oauth:grant-type:token-exchange');
  assert.equal(exchange?.get('subject_token'), 'id-token-1');
  assert.equal(exchange?.get('audience'), 'https://as.example');
  assert.equal(exchange?.get('resource'), RESOURCE);
  const grant = w.tokenRequests()[0];
  assert.equal(grant?.body.get('grant_type'), JWT_BEARER);
  assert.equal(grant?.body.get('assertion'), 'id-jag-1');
  assert.equal(grant?.headers.get('authorization'), `Basic ${Buffer.from('mcp-client:mcp-secret').toString('base64')}`);
  assert.equal((await auth.provider.tokens())?.access_token, 'access-1');
});

test('workload identity: the workload JWT is the grant, for a public client', async () => {
  const w = world();
  const auth = workloadIdentityAuth({ clientId: 'workload', assertion: () => 'workload-jwt' }, 't', w.fetchFn);
  await auth.signIn(RESOURCE);
  const grant = w.tokenRequests()[0];
  assert.equal(grant?.body.get('grant_type'), JWT_BEARER);
  assert.equal(grant?.body.get('assertion'), 'workload-jwt');
  assert.equal(grant?.body.get('client_id'), 'workload');
  assert.equal(grant?.headers.get('authorization'), null, 'no client secret of any kind');
  assert.equal((await auth.provider.tokens())?.access_token, 'access-1');
});

test('workload identity: an assertion the authorization server refuses is not sent again', async () => {
  const w = world(() => false);
  // The fake answers invalid_grant; the SDK retries after invalid_client / unauthorized_client only: make it that.
  const refusing = async (input: string | URL, init?: RequestInit) => {
    const r = await w.fetchFn(input, init);
    return r.status === 400 ? new Response(JSON.stringify({ error: 'unauthorized_client' }), { status: 400, headers: { 'content-type': 'application/json' } }) : r;
  };
  const auth = workloadIdentityAuth({ clientId: 'workload', assertion: () => 'workload-jwt' }, 't', refusing);
  await assert.rejects(auth.signIn(RESOURCE), (e: unknown) => e instanceof SignInError);
  assert.equal(w.tokenRequests().length, 1, 'one token request, not two');
});

test('every secret of these grants reaches the log\'s redactor, also when the transport runs auth() on a 401 without a sign-in', async () => {
  const w = world();
  const cross = crossAppAccessAuth({ idp: { tokenEndpoint: `${IDP}/token` }, idToken: () => 'id-token-1', idpClientId: 'idp-client', idpClientSecret: 'idp-secret', clientId: 'mcp-client', clientSecret: 'mcp-secret' }, 't', w.fetchFn);
  const redacted: string[] = [];
  cross.setSecretSink((v) => redacted.push(...v));
  assert.equal(await sdkAuth(cross.provider, { serverUrl: RESOURCE, fetchFn: w.fetchFn }), 'AUTHORIZED');
  for (const s of ['mcp-secret', 'idp-secret', 'id-token-1', 'id-jag-1', 'access-1', 'refresh-1']) assert.ok(redacted.includes(s), `${s} redacted`);

  const workload = workloadIdentityAuth({ clientId: 'workload', assertion: () => 'workload-jwt' }, 't', w.fetchFn);
  const more: string[] = [];
  workload.setSecretSink((v) => more.push(...v));
  assert.equal(await sdkAuth(workload.provider, { serverUrl: RESOURCE, fetchFn: w.fetchFn }), 'AUTHORIZED');
  for (const s of ['workload-jwt', 'access-2']) assert.ok(more.includes(s), `${s} redacted`);

  const credentials = clientCredentialsAuth({ clientId: 'cc', clientSecret: 'cc-secret' }, 't');
  const theirs: string[] = [];
  credentials.setSecretSink((v) => theirs.push(...v));
  assert.ok(theirs.includes('cc-secret'), 'a client secret is redacted from the start');
});
