/** Which kept HTTP session a start offers, and forgetting it (connection/sessionKeeper.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NULL_LOG } from '../../../src/core/base/log.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { sessionKey, type SavedSession, type SessionStore } from '../../../src/core/connection/httpSession.js';
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
