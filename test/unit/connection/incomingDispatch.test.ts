/**
 * HostClient's reading of incoming messages (connection/incomingDispatch.ts): the SDK's own
 * classification with the checks that cannot succeed left out, and a 2025-11-25 `tasks/get` for a
 * received task answered where it arrives. Differential: the same raw messages go to a HostClient
 * and to the same client with the SDK's message handler alone, and everything each sends back,
 * reports to `onerror` or hands to a notification handler must match.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, InMemoryTransport, parseJSONRPCMessage, type ConnectOptions, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { HostClient } from '../../../src/core/connection/hostClient.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { receivedTasks } from '../../../src/core/receiver/wire/receiverRequests.js';
import { checkLeaks } from '../../helpers/leaks.js';

/** The host client with the SDK's own message handler for everything (no route in front of it). */
class SdkDispatchOnly extends HostClient {
  override async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    return Client.prototype.connect.call(this, transport, options);
  }
}

type Response = { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

/** A host client on its own ledger (fixed clock, a small operation budget) and a raw 2025 peer in memory. */
async function host(kind: 'route' | 'sdk') {
  const ledger = new TaskLedger({ now: () => 1_000_000, limits: { operationsPerSecond: 1, operationsBurst: 7 } });
  const scope = ledger.forServer('srv', 'srv');
  const client = new (kind === 'route' ? HostClient : SdkDispatchOnly)({ name: 'host', version: '1' }, { received: receivedTasks(scope), versionNegotiation: 'legacy' });
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

describe('HostClient: incoming messages', () => {
  checkLeaks();

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

  test('answers, errors, notifications and what the transport\'s earlier handler sees are the SDK handler\'s, message by message', async () => {
    const runs = [];
    for (const kind of ['route', 'sdk'] as const) {
      const h = await rawHost(kind);
      await h.deliver(MESSAGES);
      runs.push(h.seen);
      await h.close();
    }
    const [route, sdk] = runs as [Seen, Seen];
    assert.ok(sdk.sent.length >= 4 && sdk.errors.length >= 5 && sdk.notifications.length >= 1, `the messages exercise every path: ${JSON.stringify(sdk)}`);
    assert.deepEqual(route.sent, sdk.sent);
    assert.deepEqual(route.errors, sdk.errors);
    assert.deepEqual(route.notifications, sdk.notifications);
    assert.deepEqual(route.prior, sdk.prior, 'the handler the transport had before connecting sees every message first, as with the SDK');
  });

  test('on a transport that checks each message, a response goes straight to the SDK response dispatch, with the same outcome as through the SDK handler', async () => {
    // What such a transport hands on: only messages that pass the SDK's message schema.
    const checked = MESSAGES.filter((m) => {
      try {
        parseJSONRPCMessage(m);
        return true;
      } catch {
        return false;
      }
    });
    assert.ok(checked.length < MESSAGES.length && checked.some((m) => (m as { result?: unknown }).result !== undefined));
    const runs = [];
    for (const kind of ['route', 'sdk'] as const) {
      const h = await rawHost(kind, true);
      // The host's own requests, answered with a result and then with an error response.
      const answered = await h.client.ping();
      const refused = await h.client.ping().then(
        () => 'no error',
        (e: unknown) => (e as Error).message,
      );
      await h.deliver(checked);
      runs.push({ seen: h.seen, answered, refused, dispatched: h.dispatched });
      await h.close();
    }
    const [route, sdk] = runs as [(typeof runs)[0], (typeof runs)[0]];
    assert.deepEqual(route.answered, {});
    assert.match(route.refused, /peer refuses/);
    assert.equal(route.refused, sdk.refused);
    assert.deepEqual(route.seen, sdk.seen);
    // Both answers and the response to nothing reached the response dispatch, on both paths.
    assert.equal(route.dispatched, 3);
    assert.equal(sdk.dispatched, 3);
  });
});

const MESSAGES: readonly unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 'two', method: 'no/such/method', params: {} },
  { jsonrpc: '2.0', id: 3, method: 'ping', extra: true },
  { jsonrpc: '1.0', id: 4, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', method: 5 },
  { jsonrpc: '2.0', method: 'ping', result: {} },
  { jsonrpc: '2.0', method: 'notifications/custom', params: { a: 1 } },
  { jsonrpc: '2.0', method: 'notifications/custom', params: 'not an object' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'nobody', progress: 1 } },
  { jsonrpc: '2.0', id: 99, result: {} }, // a response to nothing
  { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x' } }, // a server has no tools to call here
  { jsonrpc: '2.0', id: 6, method: 'sampling/createMessage', params: { messages: 'nope' } },
  { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'unknown' } },
  { jsonrpc: '2.0', id: 8, method: 'tasks/list', params: {} },
];

interface Seen {
  sent: unknown[];
  errors: string[];
  notifications: unknown[];
  prior: unknown[];
}

/** A host client (routes or the SDK handler alone) on a ledger scope, a raw 2025 peer, and what the client did. */
async function rawHost(kind: 'route' | 'sdk', messagesChecked = false) {
  const ledger = new TaskLedger({ now: () => 1_000_000 });
  let dispatched = 0;
  /** Counts what reaches the SDK's response dispatch. */
  class Counting extends (kind === 'route' ? HostClient : SdkDispatchOnly) {
    protected override _onresponse(response: Parameters<HostClient['_onresponse']>[0]): void {
      dispatched++;
      super._onresponse(response);
    }
  }
  const client = new Counting({ name: 'host', version: '1' }, { received: receivedTasks(ledger.forServer('srv', 'srv')), versionNegotiation: 'legacy', messagesChecked });
  const [clientSide, peer] = InMemoryTransport.createLinkedPair();
  const seen: Seen = { sent: [], errors: [], notifications: [], prior: [] };
  let pings = 0;
  peer.onmessage = (m: JSONRPCMessage) => {
    const msg = m as { id?: unknown; method?: string };
    if (msg.method === 'initialize') void peer.send({ jsonrpc: '2.0', id: msg.id as number, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'peer', version: '1' } } });
    else if (msg.method === 'ping')
      void peer.send(++pings === 1 ? { jsonrpc: '2.0', id: msg.id as number, result: {} } : { jsonrpc: '2.0', id: msg.id as number, error: { code: -32_000, message: 'the peer refuses' } });
    else if (msg.method !== 'notifications/initialized') seen.sent.push(m);
  };
  await peer.start();
  client.onerror = (e) => seen.errors.push(e.message);
  client.fallbackNotificationHandler = async (n) => void seen.notifications.push(n);
  clientSide.onmessage = (m) => void seen.prior.push(m);
  await client.connect(clientSide);
  seen.prior.length = 0; // the handshake's answer
  dispatched = 0;
  return {
    client,
    seen,
    get dispatched() {
      return dispatched;
    },
    async deliver(messages: readonly unknown[]) {
      for (const m of messages) await peer.send(m as JSONRPCMessage);
      for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
    },
    async close() {
      await client.close();
      ledger.dispose();
    },
  };
}
