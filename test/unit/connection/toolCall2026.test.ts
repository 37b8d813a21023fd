/**
 * The host's own 2026-07-28 `tools/call` over stdio (connection/toolCall2026.ts). Differential: the same
 * raw peer answers a HostClient whose transport has the shape of stdio (its own path) and a HostClient
 * whose transport has not (the SDK's `callTool`, which the own path replaces there), and every call must
 * resolve or reject alike: a result, a malformed one, an error answer, a result without `resultType`,
 * the tool's output schema (met, broken, missing, uncompilable, forgotten when the tools change), progress, a cancel, a timeout, the
 * connection closing, `input_required` with and without an owner. Each case also checks what the peer
 * saw (the cancel, the retry's `inputResponses` and `requestState`), and that the own path was the
 * one taken (the SDK's `callTool` is never run for it).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { HostClient } from '../../../src/core/connection/hostClient.js';
import type { InputRounds, InputRoundsOwner, OwnedRequestOptions } from '../../../src/core/connection/roundOwner.js';

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'peer', version: '1' } };
const complete = (result: Record<string, unknown>) => ({ ...result, resultType: 'complete', _meta: SERVER_INFO });
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object' } },
  { name: 'typed', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  { name: 'typedWrong', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  { name: 'typedMissing', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
  { name: 'typedError', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  { name: 'badSchema', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '(' } } } },
];

/** What the peer saw of one client: each `tools/call`'s params, each cancel, every request id. */
interface Seen {
  calls: Array<{ id: number; name: string; params: Record<string, unknown> }>;
  cancels: Array<Record<string, unknown>>;
  ids: number[];
}

/** A raw 2026-07-28 peer in memory, answering `tools/call` by the tool's name. */
function peerFor(peer: InMemoryTransport, seen: Seen): void {
  const send = (m: unknown) => void peer.send(m as JSONRPCMessage);
  peer.onmessage = (m: JSONRPCMessage) => {
    const msg = m as { id?: number; method?: string; params?: Record<string, unknown> & { name?: string; _meta?: { progressToken?: unknown } } };
    if (msg.method === 'notifications/cancelled') seen.cancels.push(msg.params!);
    if (msg.id === undefined || msg.method === undefined) return;
    seen.ids.push(msg.id);
    const id = msg.id;
    if (msg.method === 'server/discover') return send({ jsonrpc: '2.0', id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO } });
    if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id, result: { tools: TOOLS, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO } });
    if (msg.method !== 'tools/call') return send({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: SERVER_INFO } });
    const params = msg.params!;
    seen.calls.push({ id, name: params.name!, params: { ...params, _meta: undefined } });
    switch (params.name) {
      case 'echo':
        return send({ jsonrpc: '2.0', id, result: complete(text(`echo ${JSON.stringify(params.arguments)}`)) });
      case 'malformed':
        return send({ jsonrpc: '2.0', id, result: complete({ content: 'not a list' }) });
      case 'refused':
        return send({ jsonrpc: '2.0', id, error: { code: -32_602, message: 'no such tool', data: { tool: 'refused' } } });
      case 'noResultType':
        return send({ jsonrpc: '2.0', id, result: { ...text('old server'), _meta: SERVER_INFO } });
      case 'typed':
        return send({ jsonrpc: '2.0', id, result: complete({ ...text('7'), structuredContent: { n: 7 } }) });
      case 'typedWrong':
        return send({ jsonrpc: '2.0', id, result: complete({ ...text('x'), structuredContent: { n: 'x' } }) });
      case 'typedMissing':
        return send({ jsonrpc: '2.0', id, result: complete(text('no structure')) });
      case 'typedError':
        return send({ jsonrpc: '2.0', id, result: complete({ ...text('failed'), isError: true }) });
      case 'progress': {
        const token = params._meta?.progressToken;
        send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2, message: 'half' } });
        // Not a progress the client could take: dropped on both paths.
        send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 'most' } });
        // A turn later: the SDK hands notifications on a microtask after they arrive, and forgets a call's progress once it is answered.
        setImmediate(() => send({ jsonrpc: '2.0', id, result: complete(text('done')) }));
        return undefined;
      }
      case 'ask':
        if (params.requestState === undefined) {
          return send({
            jsonrpc: '2.0',
            id,
            result: { resultType: 'input_required', inputRequests: { who: { method: 'elicitation/create', params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } }, requestState: 'state-1', _meta: SERVER_INFO },
          });
        }
        return send({ jsonrpc: '2.0', id, result: complete(text(`hello ${JSON.stringify(params.inputResponses)} ${String(params.requestState)}`)) });
      case 'announceChange':
        send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        setImmediate(() => send({ jsonrpc: '2.0', id, result: complete(text('changed')) }));
        return undefined;
      case 'hang':
        return undefined;
      default:
        return send({ jsonrpc: '2.0', id, error: { code: -32_601, message: `unknown tool ${params.name}` } });
    }
  };
}

type Path = 'own' | 'sdk';

/** A HostClient on a raw peer; `own`: its transport has the shape of stdio (`pid`, `stderr`), so its calls take the own path. */
async function connected(path: Path): Promise<{ client: HostClient; peer: InMemoryTransport; seen: Seen }> {
  const client = new HostClient({ name: 'host', version: '1' }, { versionNegotiation: { pin: '2026-07-28' } });
  const [clientSide, peer] = InMemoryTransport.createLinkedPair();
  if (path === 'own') Object.assign(clientSide, { pid: 4242, stderr: null });
  const seen: Seen = { calls: [], cancels: [], ids: [] };
  peerFor(peer, seen);
  await peer.start();
  await client.connect(clientSide as Transport);
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return { client, peer, seen };
}

type Outcome = { readonly resolved: unknown } | { readonly rejected: string; readonly type: string; readonly code?: unknown; readonly data?: unknown };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { resolved: await run() };
  } catch (e) {
    const err = e as { code?: unknown; data?: unknown };
    return { rejected: e instanceof Error ? e.message : String(e), type: e instanceof Error ? e.constructor.name : typeof e, ...(err?.code !== undefined ? { code: err.code } : {}), ...(err?.data !== undefined ? { data: err.data } : {}) };
  }
}

/** Counts the SDK `callTool` runs while `run` runs (the own path never runs it). */
async function countingSdkCalls<T>(run: () => Promise<T>): Promise<{ value: T; sdkCalls: number }> {
  const original = Client.prototype.callTool;
  let sdkCalls = 0;
  Client.prototype.callTool = function (this: Client, ...args: Parameters<Client['callTool']>) {
    sdkCalls++;
    return original.apply(this, args);
  };
  try {
    return { value: await run(), sdkCalls };
  } finally {
    Client.prototype.callTool = original;
  }
}

/** An owner of `input_required` rounds that answers each with `who: { name }` and records what it was given. */
function owner(log: InputRounds[]): InputRoundsOwner {
  return {
    async drive(rounds) {
      log.push(rounds);
      const next = await rounds.retry({ who: { action: 'accept', content: { name: 'Ada' } } }, rounds.first.requestState);
      if (next.kind !== 'complete') throw new Error('still asking');
      return next.result;
    },
  };
}

/** Every case, on one client: what each call resolved or rejected with, and what the peer and the owner saw. */
async function run(path: Path): Promise<{ outcomes: Record<string, Outcome>; seen: Seen; rounds: InputRounds[]; progress: unknown[]; sdkCalls: number }> {
  const { client, peer, seen } = await connected(path);
  const rounds: InputRounds[] = [];
  const progress: unknown[] = [];
  const outcomes: Record<string, Outcome> = {};
  const { sdkCalls } = await countingSdkCalls(async () => {
    outcomes['echo before tools/list'] = await outcome(() => client.callTool({ name: 'echo', arguments: { a: 1 } }));
    outcomes['tools/list'] = await outcome(async () => (await client.listTools()).tools.length);
    for (const name of ['echo', 'malformed', 'refused', 'noResultType', 'typed', 'typedWrong', 'typedMissing', 'typedError', 'badSchema', 'unknown']) {
      outcomes[name] = await outcome(() => client.callTool({ name, arguments: {} }));
    }
    outcomes['typed twice'] = await outcome(() => client.callTool({ name: 'typed', arguments: {} }));
    outcomes['typed with a definition given'] = await outcome(() => client.callTool({ name: 'typed', arguments: {} }, { toolDefinition: { ...TOOLS[1]!, outputSchema: { type: 'object', properties: { n: { type: 'string' } } } } as never }));
    // The server's tools changed: no output schema holds until they are listed again (the SDK evicts its cached list).
    outcomes['list changed'] = await outcome(() => client.callTool({ name: 'announceChange', arguments: {} }));
    outcomes['typedWrong after the list changed'] = await outcome(() => client.callTool({ name: 'typedWrong', arguments: {} }));
    outcomes['listed again'] = await outcome(async () => (await client.listTools()).tools.length);
    outcomes['typedWrong listed again'] = await outcome(() => client.callTool({ name: 'typedWrong', arguments: {} }));
    outcomes.progress = await outcome(() => client.callTool({ name: 'progress', arguments: {} }, { onprogress: (p) => progress.push(p) }));
    outcomes['ask, no owner'] = await outcome(() => client.callTool({ name: 'ask', arguments: {} }));
    const owned: OwnedRequestOptions = { inputRounds: owner(rounds) };
    outcomes['ask, owned'] = await outcome(() => client.callTool({ name: 'ask', arguments: { x: 1 } }, owned));
    const stop = new AbortController();
    const cancelled = outcome(() => client.callTool({ name: 'hang', arguments: {} }, { signal: stop.signal }));
    await until(() => seen.calls.at(-1)?.name === 'hang');
    stop.abort('the user cancelled');
    outcomes.cancelled = await cancelled;
    outcomes['aborted before'] = await outcome(() => client.callTool({ name: 'echo', arguments: {} }, { signal: AbortSignal.abort('early') }));
    outcomes['timed out'] = await outcome(() => client.callTool({ name: 'hang', arguments: {} }, { timeout: 30 }));
    const closing = outcome(() => client.callTool({ name: 'hang', arguments: {} }));
    await until(() => seen.calls.filter((c) => c.name === 'hang').length === 3);
    await peer.close();
    outcomes['connection closed'] = await closing;
  });
  // Closed: no transport, so no stdio shape either; the SDK's refusal either way.
  outcomes['after close'] = await outcome(() => client.callTool({ name: 'echo', arguments: {} }));
  return { outcomes, seen, rounds, progress, sdkCalls };
}

/** Waits until `cond` holds, a turn at a time. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

describe('the own 2026-07-28 tools/call over stdio (toolCall2026.ts)', () => {
  test('resolves and rejects every call as the SDK path does, and the peer sees the same requests', async () => {
    const own = await run('own');
    const sdk = await run('sdk');
    assert.equal(own.sdkCalls, 0, 'the own path never runs the SDK callTool');
    assert.ok(sdk.sdkCalls >= 20, `the SDK path runs it for each call (${sdk.sdkCalls})`);
    assert.deepEqual(own.outcomes, sdk.outcomes);
    assert.deepEqual(own.progress, sdk.progress);
    // The peer saw the same calls (params without _meta) and the same cancels, in the same order.
    assert.deepEqual(
      own.seen.calls.map((c) => ({ name: c.name, params: c.params })),
      sdk.seen.calls.map((c) => ({ name: c.name, params: c.params })),
    );
    assert.deepEqual(own.seen.cancels.map(withoutMeta), sdk.seen.cancels.map(withoutMeta));
    assert.deepEqual(own.seen.ids, sdk.seen.ids, 'one id space, numbered alike');

    // The cases are what they say.
    const o = own.outcomes;
    assert.match(JSON.stringify(o['echo before tools/list']), /echo \{\\"a\\":1\}/);
    assert.deepEqual(o['tools/list'], { resolved: TOOLS.length });
    assert.equal((o.malformed as { type: string }).type, 'SdkError');
    assert.match((o.malformed as { rejected: string }).rejected, /^Invalid result for tools\/call/);
    assert.deepEqual({ ...o.refused, rejected: undefined }, { rejected: undefined, type: 'ProtocolError', code: -32_602, data: { tool: 'refused' } });
    assert.ok('rejected' in o.noResultType!, 'a result without resultType is refused by the client alone (the connection fills it in: tasksExtension.ts)');
    assert.match(JSON.stringify(o.typed), /"n":7/);
    assert.match((o.typedWrong as { rejected: string }).rejected, /Structured content does not match the tool's output schema/);
    assert.match((o.typedMissing as { rejected: string }).rejected, /has an output schema but did not return structured content/);
    assert.match(JSON.stringify(o.typedError), /"isError":true/);
    assert.match((o.badSchema as { rejected: string }).rejected, /Tool 'badSchema' has an invalid outputSchema/);
    assert.ok(!own.seen.calls.some((c) => c.name === 'badSchema'), 'a tool whose output schema does not compile is not called');
    assert.deepEqual(o['typed twice'], o.typed);
    assert.match((o['typed with a definition given'] as { rejected: string }).rejected, /does not match the tool's output schema/);
    assert.match(JSON.stringify(o['typedWrong after the list changed']), /"n":"x"/);
    assert.deepEqual(o['typedWrong listed again'], o.typedWrong);
    assert.deepEqual(own.progress, [{ progress: 1, total: 2, message: 'half' }]);
    assert.match((o['ask, no owner'] as { rejected: string }).rejected, /Unsupported result type 'input_required' for tools\/call/);
    assert.match(JSON.stringify(o['ask, owned']), /hello \{\\"who\\":\{\\"action\\":\\"accept\\",\\"content\\":\{\\"name\\":\\"Ada\\"\}\}\} state-1/);
    assert.equal(own.rounds.length, 1);
    assert.equal(own.rounds[0]!.first.requestState, 'state-1');
    const retry = own.seen.calls.filter((c) => c.name === 'ask').at(-1)!;
    assert.deepEqual(retry.params.arguments, { x: 1 }, 'the retry is the original request again');
    assert.match((o.cancelled as { rejected: string }).rejected, /the user cancelled/);
    const hang = own.seen.calls.filter((c) => c.name === 'hang');
    assert.deepEqual(own.seen.cancels.map(withoutMeta), [
      { requestId: hang[0]!.id, reason: 'the user cancelled' },
      { requestId: hang[1]!.id, reason: 'SdkError: Request timed out' },
    ]);
    assert.ok(own.seen.cancels.every((c) => typeof c._meta === 'object'), 'a cancel carries the era envelope');
    assert.match((o['aborted before'] as { rejected: string }).rejected, /early/);
    assert.match((o['timed out'] as { rejected: string }).rejected, /Request timed out/);
    assert.match((o['connection closed'] as { rejected: string }).rejected, /Connection closed/);
    assert.equal(new Set(own.seen.ids).size, own.seen.ids.length, 'no id sent twice');
  });
});

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _envelope, ...rest } = params;
  return rest;
}

describe('what the own path leaves to the SDK (ToolCalls2026.covers)', () => {
  test('a call that names an option the own path does not read goes to the SDK callTool, on the same stdio-shaped client', async () => {
    const { client } = await connected('own');
    const plain = await countingSdkCalls(() => client.callTool({ name: 'echo', arguments: { a: 1 } }));
    const withHeaders = await countingSdkCalls(() => client.callTool({ name: 'echo', arguments: { a: 1 } }, { headers: { 'x-extra': '1' } }));
    const resetOnProgress = await countingSdkCalls(() => client.callTool({ name: 'echo', arguments: { a: 1 } }, { resetTimeoutOnProgress: true }));
    assert.equal(plain.sdkCalls, 0);
    assert.equal(withHeaders.sdkCalls, 1);
    assert.equal(resetOnProgress.sdkCalls, 1);
    assert.deepEqual(withHeaders.value, plain.value);
    assert.deepEqual(resetOnProgress.value, plain.value);
    await client.close();
  });
});
