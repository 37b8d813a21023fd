/**
 * A request without a result schema on a HostClient (connection/hostClient.ts `request`): the era's
 * result check is made once per method, not for every request. Differential: the same raw answers go
 * to a HostClient and to a bare SDK v2 Client, both on 2026-07-28, and what each request resolves
 * with or rejects with must match: a good result, a malformed one, an error response, a method with
 * no result entry (the SDK's TypeError), a method of the other era, and a request with a schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { HostClient } from '../../../src/core/connection/hostClient.js';

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'peer', version: '1' } };

/** What the raw peer answers each `tools/call`, by the tool's name. */
const ANSWERS: Record<string, (id: number) => JSONRPCMessage> = {
  good: (id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }], resultType: 'complete', _meta: SERVER_INFO } }),
  malformed: (id) => ({ jsonrpc: '2.0', id, result: { content: 'not a list', resultType: 'complete', _meta: SERVER_INFO } }),
  refused: (id) => ({ jsonrpc: '2.0', id, error: { code: -32_602, message: 'no such tool' } }),
};

/** A client of `kind` connected to a raw 2026-07-28 peer in memory. */
async function connected(kind: 'host' | 'bare'): Promise<Client> {
  const options = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
  const client = kind === 'host' ? new HostClient({ name: 'host', version: '1' }, { versionNegotiation: { pin: '2026-07-28' } }) : new Client({ name: 'host', version: '1' }, options);
  const [clientSide, peer] = InMemoryTransport.createLinkedPair();
  peer.onmessage = (m: JSONRPCMessage) => {
    const msg = m as { id?: number; method?: string; params?: { name?: string } };
    if (msg.id === undefined || msg.method === undefined) return;
    if (msg.method === 'server/discover') {
      void peer.send({ jsonrpc: '2.0', id: msg.id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO } });
    } else if (msg.method === 'tools/list') {
      void peer.send({ jsonrpc: '2.0', id: msg.id, result: { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO } });
    } else if (msg.method === 'tools/call') {
      void peer.send(ANSWERS[msg.params?.name ?? '']!(msg.id));
    } else {
      void peer.send({ jsonrpc: '2.0', id: msg.id, result: { resultType: 'complete', _meta: SERVER_INFO } });
    }
  };
  await peer.start();
  await client.connect(clientSide);
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return client;
}

type Outcome = { readonly resolved: unknown } | { readonly rejected: string; readonly type: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { resolved: await run() };
  } catch (e) {
    return { rejected: e instanceof Error ? e.message : String(e), type: e instanceof Error ? e.constructor.name : typeof e };
  }
}

describe('HostClient: the result check of a request without a schema', () => {
  test('resolves and rejects as the bare SDK client does, asked again and again', async () => {
    const runs: Outcome[][] = [];
    for (const kind of ['host', 'bare'] as const) {
      const client = await connected(kind);
      const seen: Outcome[] = [];
      // Twice each: the second request of a method uses the check kept from the first.
      for (let round = 0; round < 2; round++) {
        for (const name of ['good', 'malformed', 'refused']) seen.push(await outcome(() => client.request({ method: 'tools/call', params: { name, arguments: {} } })));
        seen.push(await outcome(() => client.callTool({ name: 'good', arguments: {} })));
        seen.push(await outcome(() => client.request({ method: 'tools/list' })));
        seen.push(await outcome(() => (client.request as (r: { method: string }) => Promise<unknown>)({ method: 'custom/no-entry' })));
        // A 2025-11-25 method this era no longer has: refused before it is sent.
        seen.push(await outcome(() => client.ping()));
        seen.push(await outcome(() => client.request({ method: 'custom/with-schema' }, z.object({ _meta: z.record(z.string(), z.unknown()) }))));
      }
      runs.push(seen);
      await client.close();
    }
    const [host, bare] = runs as [Outcome[], Outcome[]];
    assert.deepEqual(host, bare);
    // The cases are what they say: a result, a malformed one refused, an error, a TypeError, a refusal, a schema's result.
    assert.ok('resolved' in host[0]!, JSON.stringify(host[0]));
    assert.ok('rejected' in host[1]! && host[1].rejected.length > 0, JSON.stringify(host[1]));
    assert.ok('rejected' in host[2]! && /no such tool/.test(host[2].rejected));
    assert.ok('resolved' in host[3]! && 'resolved' in host[4]!, JSON.stringify(host.slice(3, 5)));
    assert.ok('rejected' in host[5]! && host[5].type === 'TypeError', JSON.stringify(host[5]));
    assert.ok('rejected' in host[6]! && host[6].type === 'SdkError', JSON.stringify(host[6]));
    assert.ok('resolved' in host[7]!, JSON.stringify(host[7]));
  });
});
