/**
 * What a conformance scenario's context chooses in the headless client: the authorization for
 * its credentials, and the arguments of its calls (named in the context, or made of what the
 * client listed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientCredentialsProvider, CrossAppAccessProvider, PrivateKeyJwtProvider, type Tool } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { HostOAuthProvider } from '../../../src/core/connection/auth/oauthProvider.js';
import { WorkloadIdentityProvider } from '../../../src/core/connection/auth/machineAuth.js';
import { headlessAuth } from '../../../src/headless/auth.js';
import { parseContext, toolArgsOf } from '../../../src/headless/context.js';
import { argumentsFromListing } from '../../../src/headless/scenarios.js';

const def: ServerDefinition = { id: 's', name: 's', source: { kind: 'user', file: '(test)' }, transport: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} }, inputs: [] };
const providerFor = (context: Record<string, unknown>, scenario = 'x') => headlessAuth({ clientName: 't', context: parseContext(JSON.stringify(context)), scenario })(def)?.provider;

test('the context\'s credentials choose the authorization', () => {
  assert.ok(providerFor({ idp_id_token: 'id', idp_token_endpoint: 'http://127.0.0.1:2/token', idp_client_id: 'idp', client_id: 'c', client_secret: 's' }) instanceof CrossAppAccessProvider, 'enterprise-managed');
  assert.ok(providerFor({ client_id: 'c', valid_jwt: 'jwt' }) instanceof WorkloadIdentityProvider, 'workload identity');
  assert.ok(providerFor({ client_id: 'c', private_key_pem: 'pem' }) instanceof PrivateKeyJwtProvider);
  assert.ok(providerFor({ client_id: 'c', client_secret: 's' }, 'auth/client-credentials-basic') instanceof ClientCredentialsProvider);
  assert.ok(providerFor({ client_id: 'c', client_secret: 's' }, 'auth/pre-registration') instanceof HostOAuthProvider, 'a pre-registered client signs in with the browser flow');
  assert.ok(providerFor({}) instanceof HostOAuthProvider);
});

test('the context names the arguments of its calls', () => {
  assert.deepEqual(toolArgsOf(parseContext(JSON.stringify({ toolCalls: [{ name: 'a', arguments: { x: ' padded ' } }, { name: 'b' }] }))), { a: { x: ' padded ' }, b: {} });
  assert.deepEqual(toolArgsOf(parseContext(undefined)), {});
});

test('json-schema-2020-12-preservation: the focal tool\'s inputSchema, as listed, is the echo tool\'s argument', () => {
  const inputSchema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' as const, $defs: { a: { $anchor: 'a' } }, allOf: [{}] };
  const tools = [{ name: 'json_schema_2020_12_tool', inputSchema }, { name: 'json_schema_echo', inputSchema: { type: 'object' as const } }] as Tool[];
  assert.deepEqual(argumentsFromListing('json-schema-2020-12-preservation', tools), { json_schema_echo: { schema: inputSchema } });
  assert.deepEqual(argumentsFromListing('tools_call', tools), {});
});
