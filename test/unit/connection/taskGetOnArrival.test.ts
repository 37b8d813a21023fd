/**
 * A 2025-11-25 `tasks/get` for a received task is answered where it arrives
 * (connection/taskGetOnArrival.ts), with exactly what the SDK's dispatch answers for the same
 * handler: checked message by message against the same host client with the SDK's dispatch alone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, InMemoryTransport, type ConnectOptions, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { HostClient } from '../../../src/core/connection/hostClient.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';

/** The host client with the SDK's own dispatch for everything (no route in front of it). */
class SdkDispatchOnly extends HostClient {
  override async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    return Client.prototype.connect.call(this, transport, options);
  }
}

type Response = { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

/** A host client on its own ledger (fixed clock, a small operation budget) and a raw 2025 peer in memory. */
async function host(kind: 'route' | 'sdk') {
  const ledger = new TaskLedger({ now: () => 1_000_000, limits: { operationsPerSecond: 1, operationsBurst: 7 } });
  const scope = ledger.scope('srv', 'srv');
  const client = new (kind === 'route' ? HostClient : SdkDispatchOnly)({ name: 'host', version: '1' }, { taskStore: scope, versionNegotiation: 'legacy' });
  const [clientSide, peer] = InMemoryTransport.createLinkedPair();
  const responses = new Map<unknown, Response>();
  peer.onmessage = (m: JSONRPCMessage) => {
    const msg = m as { id?: unknown; method?: string };
    if (msg.method === 'initialize') {
      void peer.send({ jsonrpc: '2.0', id: msg.id as number, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'peer', version: '1' } } });
    } else if (msg.method === undefined) {
      responses.set(msg.id, m as unknown as Response);
    }
  };
  await peer.start();
  await client.connect(clientSide);
  const request = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
  const known = (await scope.createTask({ ttl: 60_000 }, 1, request as never)).taskId;
  let nextId = 100;
  return {
    scope,
    known,
    responses,
    /** Sends a raw request and tells whether its answer had arrived by the time the send returned. */
    answeredAtOnce(method: string, params?: unknown): boolean {
      const id = nextId++;
      void peer.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) } as JSONRPCMessage);
      return responses.has(id);
    },
    /** Sends a raw request; resolves with its answer. */
    async ask(method: string, params?: unknown): Promise<Response> {
      const id = nextId++;
      await peer.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) } as JSONRPCMessage);
      for (let i = 0; i < 50 && !responses.has(id); i++) await new Promise((r) => setImmediate(r));
      const r = responses.get(id);
      assert.ok(r, `no answer to ${method} ${JSON.stringify(params)}`);
      return r;
    },
    async close() {
      await client.close();
      ledger.dispose();
    },
  };
}

describe('tasks/get answered on arrival', () => {
  test('the answer is sent in the turn the request arrives, before any promise of the SDK dispatch runs', async () => {
    const h = await host('route');
    try {
      // The in-memory transport delivers synchronously, both ways: an answer sent in the same turn is there at once.
      assert.equal(h.answeredAtOnce('tasks/get', { taskId: h.known }), true, 'tasks/get: answered in the same turn');
      assert.equal(h.answeredAtOnce('ping'), false, 'any other request: the SDK dispatch, a few turns later');
      await h.ask('ping');
    } finally {
      await h.close();
    }
  });

  test('known task, unknown task, malformed params, a task-augmented tasks/get and a spent budget: the same answers as the SDK dispatch', async () => {
    const route = await host('route');
    const sdk = await host('sdk');
    try {
      const both = async (params: (h: typeof route) => unknown): Promise<[Response, Response]> => [await route.ask('tasks/get', params(route)), await sdk.ask('tasks/get', params(sdk))];
      const strip = (r: Response) => ({ ...r, id: undefined });

      const [a, b] = await both((h) => ({ taskId: h.known }));
      assert.equal(a.result?._meta, undefined, 'R-META-2: no related-task metadata');
      assert.deepEqual(Object.keys(a.result!).sort(), Object.keys(b.result!).sort());
      assert.deepEqual(a.result, route.scope.getTaskNow(route.known), 'R-TASK-1: the task as stored');
      assert.deepEqual(b.result, sdk.scope.getTaskNow(sdk.known));

      for (const params of [{ taskId: 'no-such-task' }, { taskId: 42 }, {}, undefined, { taskId: '' }]) {
        const [x, y] = await both(() => params);
        assert.ok(x.error, `an error for ${JSON.stringify(params)}`);
        assert.deepEqual(strip(x), strip(y), `the same error for ${JSON.stringify(params)}`);
      }
      const [x, y] = await both((h) => ({ taskId: h.known, task: { ttl: 5 } }));
      assert.deepEqual(strip(x).error ?? Object.keys(x.result!).sort(), strip(y).error ?? Object.keys(y.result!).sort(), 'a task-augmented tasks/get goes the SDK way on both');

      // R-SEC-3: the budget (7 operations, no refill on the fixed clock) is spent by now on both sides.
      const [spentA, spentB] = await both((h) => ({ taskId: h.known }));
      assert.equal(spentA.error?.code, -32600, JSON.stringify(spentA));
      assert.deepEqual(strip(spentA), strip(spentB));
      assert.equal(route.scope.operationsAdmitted, sdk.scope.operationsAdmitted, 'each tasks/get charged once on both paths');
    } finally {
      await route.close();
      await sdk.close();
    }
  });
});
