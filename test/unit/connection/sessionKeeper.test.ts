/** Which kept HTTP session a start offers, and forgetting it (connection/sessionKeeper.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NULL_LOG } from '../../../src/core/base/log.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { MAX_STORED_SESSION_CHARS, readSession, sessionKey, storableSession, type SavedSession, type SessionStore } from '../../../src/core/connection/httpSession.js';
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
