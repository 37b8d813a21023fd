// Recognizing refused client credentials: the SDK's OAuth errors invalid_client and
// unauthorized_client, also as a cause; nothing else (a refused grant or a server error is not a
// credentials problem the user fixes in mcp.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/client';
import { credentialsRejectedMessage, rejectedCredentialsCode } from '../../../src/core/connection/auth/credentialsRejected.js';

test('invalid_client and unauthorized_client are refused credentials, also wrapped as a cause', () => {
  assert.equal(rejectedCredentialsCode(new OAuthError(OAuthErrorCode.InvalidClient, 'bad secret')), 'invalid_client');
  assert.equal(rejectedCredentialsCode(new OAuthError(OAuthErrorCode.UnauthorizedClient, '')), 'unauthorized_client');
  assert.equal(rejectedCredentialsCode(new Error('send failed', { cause: new OAuthError(OAuthErrorCode.InvalidClient, '') })), 'invalid_client');
});

test('other failures are not', () => {
  for (const e of [new OAuthError(OAuthErrorCode.InvalidGrant, 'expired'), new OAuthError(OAuthErrorCode.ServerError, 'boom'), new Error('fetch failed'), 'invalid_client', undefined]) assert.equal(rejectedCredentialsCode(e), undefined);
});

test('the message names the server, the authorization server, the answer and where to fix it', () => {
  assert.equal(
    credentialsRejectedMessage('acme', 'https://auth.acme.example/', 'invalid_client', '/ws/.vscode/mcp.json'),
    'the authorization server https://auth.acme.example/ refused the client credentials of "acme" (invalid_client): check the client id and its secret or private key in /ws/.vscode/mcp.json, or enter the input again',
  );
});
