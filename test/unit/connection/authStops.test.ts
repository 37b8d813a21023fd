/** Which OAuth stop a failed handshake calls for (connection/auth/authStops.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/client';
import type { TransportDefinition } from '../../../src/core/config/config.js';
import { authStopOf } from '../../../src/core/connection/auth/authStops.js';
import type { ServerAuth } from '../../../src/core/connection/auth/serverAuth.js';

const HTTP: TransportDefinition = { type: 'http', url: 'https://mcp.example/mcp', headers: {}, oauth: { issuer: 'https://as.example' } } as TransportDefinition;
const nothingSeen = { startCause: undefined, rejectedCode: undefined };
const browser = { interactive: true } as ServerAuth;
const machine = { interactive: false } as ServerAuth;

describe('authStopOf', () => {
  it('a 401 wants a sign-in, whether the handshake or the transport saw it, wrapped or not', () => {
    assert.deepEqual(authStopOf(new UnauthorizedError('401'), nothingSeen, HTTP, browser), { kind: 'sign-in' });
    assert.deepEqual(authStopOf(new Error('failed', { cause: new UnauthorizedError('401') }), nothingSeen, HTTP, browser), { kind: 'sign-in' });
    assert.deepEqual(authStopOf(new Error('aborted'), { startCause: new UnauthorizedError('401'), rejectedCode: undefined }, HTTP, browser), { kind: 'sign-in' });
  });

  it('refused client credentials stop at "credentials rejected" (naming the configured issuer); a browser sign-in never does', () => {
    const seen = { startCause: undefined, rejectedCode: 'invalid_client' };
    assert.deepEqual(authStopOf(new Error('aborted'), seen, HTTP, machine), { kind: 'credentials-rejected', code: 'invalid_client', issuer: 'https://as.example' });
    assert.equal(authStopOf(new Error('aborted'), seen, HTTP, browser), undefined);
  });

  it('without OAuth, or with any other failure, there is no OAuth stop (the start failed and is retried)', () => {
    assert.equal(authStopOf(new UnauthorizedError('401'), nothingSeen, HTTP, undefined), undefined);
    assert.equal(authStopOf(new Error('ECONNREFUSED'), nothingSeen, HTTP, machine), undefined);
  });
});
