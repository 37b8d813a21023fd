// Recognizing refused client credentials (issue 13): the SDK's OAuth errors invalid_client and
// unauthorized_client, also as a cause; nothing else (a refused grant or a server error is not a
// credentials problem the user fixes in mcp.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidClientError, InvalidGrantError, ServerError, UnauthorizedClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { credentialsRejectedMessage, rejectedCredentialsCode } from '../../../src/core/connection/auth/credentialsRejected.js';

test('invalid_client and unauthorized_client are refused credentials, also wrapped as a cause', () => {
  assert.equal(rejectedCredentialsCode(new InvalidClientError('bad secret')), 'invalid_client');
  assert.equal(rejectedCredentialsCode(new UnauthorizedClientError('')), 'unauthorized_client');
  assert.equal(rejectedCredentialsCode(new Error('send failed', { cause: new InvalidClientError('') })), 'invalid_client');
});

test('other failures are not', () => {
  for (const e of [new InvalidGrantError('expired'), new ServerError('boom'), new Error('fetch failed'), 'invalid_client', undefined]) assert.equal(rejectedCredentialsCode(e), undefined);
});

test('the message names the server, the authorization server, the answer and where to fix it', () => {
  assert.equal(
    credentialsRejectedMessage('acme', 'https://auth.acme.example/', 'invalid_client', '/ws/.vscode/mcp.json'),
    'the authorization server https://auth.acme.example/ refused the client credentials of "acme" (invalid_client): check the client id and its secret or private key in /ws/.vscode/mcp.json, or enter the input again',
  );
});
