/** What one connection attempt does with its transport's errors (connection/transportErrors.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, InMemoryTransport, UnauthorizedError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import type { ServerLog } from '../../../src/core/base/log.js';
import { AttemptErrors, type AttemptHooks, type AttemptPhase } from '../../../src/core/connection/transportErrors.js';

function setUp(phase: AttemptPhase, over: Partial<AttemptHooks> = {}) {
  const calls: string[] = [];
  const lines: string[] = [];
  const log: ServerLog = { trace: () => undefined, debug: (l) => void lines.push(`debug ${l}`), info: (l) => void lines.push(`info ${l}`), warn: (l) => void lines.push(`warn ${l}`), error: (l) => void lines.push(`error ${l}`), traceEnabled: false };
  let now: AttemptPhase = phase;
  const errors = new AttemptErrors({
    phase: () => now,
    http: false,
    signsIn: false,
    target: { command: 'my-server' },
    log,
    closeChannel: () => void calls.push('closeChannel'),
    unauthorizedWhileRunning: () => void calls.push('unauthorized'),
    httpErrorWhileRunning: () => void calls.push('httpError'),
    oversized: (n) => void calls.push(`oversized ${n}`),
    ...over,
  });
  return { errors, calls, lines, setPhase: (p: AttemptPhase) => (now = p) };
}

describe('AttemptErrors', () => {
  it('while starting, text on stdout fails the start at once, quoting it, and closes the channel', () => {
    const { errors, calls, lines } = setUp('starting');
    errors.noise('Listening on port 3000');
    assert.equal(errors.startError, 'it wrote text that is not JSON-RPC on stdout: "Listening on port 3000"');
    assert.ok(errors.signal.aborted);
    assert.deepEqual(calls, ['closeChannel']);
    assert.deepEqual(lines, ['warn [stdout] not JSON-RPC: Listening on port 3000']);
    // The first reason stays the reason.
    errors.failStart('something later');
    assert.equal(errors.startError, 'it wrote text that is not JSON-RPC on stdout: "Listening on port 3000"');
  });

  it('once running, stdout noise is logged and fails nothing; a stale attempt fails nothing and calls no hook (its protocol errors are still logged)', () => {
    const running = setUp('running');
    running.errors.noise('hello');
    assert.equal(running.errors.startError, undefined);
    assert.equal(running.errors.signal.aborted, false);
    assert.equal(running.lines.length, 1);
    const stale = setUp('stale');
    stale.errors.noise('hello');
    stale.errors.error(new Error('late'));
    assert.deepEqual(stale.lines, ['warn protocol error: late'], 'no stdout line, only the error');
    assert.deepEqual(stale.calls, []);
    assert.equal(stale.errors.startError, undefined);
    assert.equal(stale.errors.signal.aborted, false);
  });

  it('a 401 with OAuth: aborts the start (kept as its cause), or asks for a sign-in once running', () => {
    const starting = setUp('starting', { signsIn: true, http: true });
    const e = new UnauthorizedError('401');
    starting.errors.error(e);
    assert.equal(starting.errors.startCause, e);
    assert.equal(starting.errors.signal.reason, e);
    const running = setUp('running', { signsIn: true, http: true });
    running.errors.error(new UnauthorizedError('401'));
    assert.deepEqual(running.calls, ['unauthorized']);
  });

  it('each error is handled once, though both the client and the transport report it', () => {
    const { errors, calls } = setUp('running', { http: true });
    const e = new Error('fetch failed');
    errors.error(e);
    errors.error(e);
    assert.deepEqual(calls, ['httpError']);
  });

  it('an oversized message is named with its limit; while starting on stdio any error fails the start', () => {
    const { errors, calls } = setUp('starting');
    errors.error(new Error('ReadBuffer exceeded maximum size of 1048576 bytes'));
    assert.deepEqual(calls, ['oversized 1048576', 'closeChannel']);
    assert.match(errors.startError ?? '', /ReadBuffer exceeded/);
  });

  it('while an HTTP start is under way an error is only noted (the SDK may fall back from server/discover)', () => {
    const { errors, calls, lines } = setUp('starting', { http: true });
    errors.error(new Error('HTTP 404'));
    assert.equal(errors.startError, undefined);
    assert.deepEqual(calls, []);
    assert.deepEqual(lines, ['debug while starting: HTTP 404']);
  });
});

describe('AttemptErrors: progress after its request ended', () => {
  it('the SDK\'s "unknown token" error for a late progress notification is logged at debug, not as a protocol error', async () => {
    const { errors, lines, calls } = setUp('running');
    // The real SDK client meets a progress notification whose request is over (the token is unknown).
    const client = new Client({ name: 'host', version: '1' });
    client.onerror = (e) => errors.error(e);
    const [clientSide, peer] = InMemoryTransport.createLinkedPair();
    peer.onmessage = (m: JSONRPCMessage) => {
      const msg = m as { id?: number; method?: string };
      if (msg.method === 'initialize') void peer.send({ jsonrpc: '2.0', id: msg.id!, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'peer', version: '1' } } });
    };
    await peer.start();
    await client.connect(clientSide);
    await peer.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 100, total: 100 } });
    for (let i = 0; i < 50 && lines.length === 0; i++) await new Promise((r) => setImmediate(r));
    await client.close();
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /^debug progress after its request ended: Received a progress notification for an unknown token/);
    assert.deepEqual(calls, []);
    // Any other error is still a protocol error, as a warning.
    errors.error(new Error('Unknown message type'));
    assert.equal(lines[1], 'warn protocol error: Unknown message type');
  });
});
