/** Which kept HTTP session a start offers, and forgetting it (connection/sessionKeeper.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { NULL_LOG } from '../../../src/core/base/log.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { MAX_STORED_SESSION_CHARS, describeRefusal, isSessionGone, readSession, sessionKey, storableSession, type SavedSession, type SessionStore } from '../../../src/core/connection/httpSession.js';
import { SessionKeeper } from '../../../src/core/connection/sessionKeeper.js';

const URL_A = 'http://127.0.0.1:4000/mcp';
const def: ServerDefinition = { id: 'a', name: 'a', source: { kind: 'user', file: 'mcp.json' }, transport: { type: 'http', url: URL_A, headers: {} }, inputs: [] };
const saved: SavedSession = { sessionId: 's-1', protocolVersion: '2025-11-25', capabilities: {} };

function memoryStore(): SessionStore & { readonly map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return { map, get: (k) => map.get(k), set: (k, v) => void (v === undefined ? map.delete(k) : map.set(k, v)) };
}

describe('SessionKeeper', () => {
  it('offers the session kept for the definition and the URL it dials', () => {
    const store = memoryStore();
    store.set(sessionKey(def, URL_A), saved);
    const offer = new SessionKeeper(def, store, NULL_LOG).offer({ type: 'http', url: URL_A, headers: {} }, false);
    assert.equal(offer.key, sessionKey(def, URL_A));
    assert.deepEqual(offer.saved, saved);
  });

  it('offers nothing over stdio, legacy SSE, a transport a factory made, or with no store', () => {
    const store = memoryStore();
    store.set(sessionKey(def, URL_A), saved);
    const keeper = new SessionKeeper(def, store, NULL_LOG);
    assert.deepEqual(keeper.offer({ type: 'stdio', command: 'x', args: [], env: {} } as never, false), {});
    assert.deepEqual(keeper.offer({ type: 'http', url: URL_A, headers: {}, legacySse: true }, false), {});
    assert.deepEqual(keeper.offer({ type: 'http', url: URL_A, headers: {} }, true), {});
    assert.deepEqual(new SessionKeeper(def, undefined, NULL_LOG).offer({ type: 'http', url: URL_A, headers: {} }, false), {});
  });

  it('drops a kept session that is not one, and forgets the one of the URL last dialled', () => {
    const store = memoryStore();
    store.set(sessionKey(def, URL_A), { sessionId: 42 } as never);
    const keeper = new SessionKeeper(def, store, NULL_LOG);
    assert.equal(keeper.offer({ type: 'http', url: URL_A, headers: {} }, false).saved, undefined);
    assert.equal(store.map.size, 0);
    store.set(sessionKey(def, URL_A), saved);
    keeper.forget(URL_A);
    assert.equal(store.map.size, 0);
  });
});

describe('storableSession: what a server puts into workspace state is bounded', () => {
  it('keeps the capability flags and short values, drops long strings, arrays and instructions, bounds serverInfo', () => {
    const kept = storableSession({
      sessionId: 's',
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true }, tasks: { requests: { tools: { call: {} } } }, experimental: { x: { blob: 'b'.repeat(5000), list: [1, 2], n: 3, short: 'ok' } } },
      serverInfo: { name: 'n'.repeat(1000), version: '1', title: 't', icons: [{ src: 'x'.repeat(100_000) }] } as never,
      instructions: 'i'.repeat(100_000),
    });
    assert.ok('session' in kept);
    assert.deepEqual(kept.session, {
      sessionId: 's',
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true }, tasks: { requests: { tools: { call: {} } } }, experimental: { x: { n: 3, short: 'ok' } } },
      serverInfo: { name: 'n'.repeat(128), version: '1', title: 't' },
    });
    assert.ok(JSON.stringify(kept.session).length <= MAX_STORED_SESSION_CHARS);
  });

  it('refuses capabilities with more values than it keeps, and says so; a read one kept whole before is forgotten then', () => {
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, {}]));
    const refused = storableSession({ sessionId: 's', protocolVersion: '2025-11-25', capabilities: { experimental: many } });
    assert.deepEqual(refused, { refused: 'its capabilities declare more than 256 values' });
    const store = memoryStore();
    store.set(sessionKey(def, URL_A), { sessionId: 's', protocolVersion: '2025-11-25', capabilities: { experimental: many } });
    assert.equal(readSession(store, sessionKey(def, URL_A)), undefined);
    assert.equal(store.map.size, 0);
  });
});

/** An HTTP refusal as the SDK's Streamable HTTP client transport throws it (a POST answered `status`, body `text`). */
function refused(status: number, text: string): SdkHttpError {
  return new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, { status, statusText: '', text });
}
const rpcError = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: 1 });

describe('isSessionGone: an unknown session is told apart from a request that is wrong', () => {
  it('is a lost session: a 404, and a 400/401/403 whose body says the session is unknown', () => {
    assert.ok(isSessionGone(refused(404, rpcError(-32001, 'Session not found'))));
    assert.ok(isSessionGone(refused(404, '')), 'the spec names 404 for a session the server does not have, whatever its body');
    // The official SDK's example servers (the everything server) answer an unknown session so.
    assert.ok(isSessionGone(refused(400, rpcError(-32000, 'Bad Request: No valid session ID provided'))));
    assert.ok(isSessionGone(refused(400, rpcError(-32000, 'Bad Request: Server not initialized'))), 'a single-session server that restarted');
    assert.ok(isSessionGone(refused(401, 'Invalid session')));
    assert.ok(isSessionGone(refused(403, rpcError(-32000, 'Session expired'))));
    assert.ok(isSessionGone(refused(400, 'unknown session id abc')));
    assert.ok(isSessionGone(new ProtocolError(-32001, 'Session not found')));
    assert.equal(describeRefusal(refused(400, rpcError(-32000, 'Bad Request: No valid session ID provided'))), 'HTTP 400: Bad Request: No valid session ID provided');
  });

  it('is not a lost session: a 400 for a malformed request, a 401 asking for a sign-in, a 403 denial, a server error', () => {
    assert.equal(isSessionGone(refused(400, rpcError(-32700, 'Parse error: Invalid JSON'))), false);
    assert.equal(isSessionGone(refused(400, rpcError(-32600, 'Invalid Request'))), false);
    assert.equal(isSessionGone(refused(400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'))), false);
    assert.equal(isSessionGone(refused(400, rpcError(-32000, 'Bad Request: Unsupported protocol version: 1999-01-01'))), false);
    assert.equal(isSessionGone(refused(400, 'Bad Request')), false);
    assert.equal(isSessionGone(refused(401, rpcError(-32001, 'Unauthorized'))), false);
    assert.equal(isSessionGone(refused(403, 'Forbidden: this session may not call tools')), false, '"session" alone is not "unknown session"');
    assert.equal(isSessionGone(refused(500, rpcError(-32603, 'Session not found'))), false, 'a server error is the server failing, not a refusal');
    assert.equal(isSessionGone(refused(410, 'no valid session')), false);
    assert.equal(isSessionGone(new Error('No valid session ID provided')), false, 'only an answer of the server counts');
  });
});
