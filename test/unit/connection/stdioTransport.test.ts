/**
 * The stdio transport's writes (connection/stdioTransport.ts): messages sent in one turn of the event
 * loop after its first go out in one write, in order, and none is lost to a close; and its line
 * reader (connection/messageLine.ts) accepts and refuses exactly what the SDK's message schema does.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { deserializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { parseMessageLine } from '../../../src/core/connection/messageLine.js';
import { StdioTransport } from '../../../src/core/connection/stdioTransport.js';

/** Echoes every line back; at the end of its input, reports how many lines it read as a notification on stderr. */
const ECHO = `
let pending = '', lines = 0;
process.stdin.on('data', (c) => {
  pending += c;
  let i;
  while ((i = pending.indexOf('\\n')) !== -1) { process.stdout.write(pending.slice(0, i + 1)); pending = pending.slice(i + 1); lines++; }
});
process.stdin.on('end', () => { process.stderr.write('lines ' + lines + '\\n'); process.exit(0); });
`;

/** Every transport a test started, closed after it whatever it asserted. */
const started: StdioTransport[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.close()));
});

function echoTransport(): { transport: StdioTransport; received: JSONRPCMessage[]; stderr: string[]; closed: Promise<void> } {
  const transport = new StdioTransport({ command: process.execPath, args: ['-e', ECHO], env: { PATH: process.env.PATH ?? '' } });
  const received: JSONRPCMessage[] = [];
  const stderr: string[] = [];
  transport.onmessage = (m) => void received.push(m);
  transport.onStderrLine = (l) => void stderr.push(l);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  started.push(transport);
  return { transport, received, stderr, closed };
}

function note(i: number): JSONRPCMessage {
  return { jsonrpc: '2.0', method: 'test/burst', params: { i } };
}

function indexOf(m: JSONRPCMessage): number {
  return (m as unknown as { params: { i: number } }).params.i;
}

/** Resolves once `check` holds, re-checked on each message. */
function until(transport: StdioTransport, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const prior = transport.onmessage!;
    transport.onmessage = (m) => {
      prior(m);
      if (check()) resolve();
    };
    if (check()) resolve();
  });
}

describe('StdioTransport writes', () => {
  it('writes the messages sent in one turn after the first in one write, in order', async () => {
    const { transport, received, closed } = echoTransport();
    await transport.start();
    const writes: string[] = [];
    const write = net.Socket.prototype.write;
    net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].includes('test/burst')) writes.push(args[0]);
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof write;
    try {
      const sent = Array.from({ length: 50 }, (_, i) => transport.send(note(i)));
      await Promise.all(sent);
    } finally {
      net.Socket.prototype.write = write;
    }
    assert.equal(writes.length, 2, 'the first message at once, the other 49 together');
    assert.equal(writes[1]!.split('\n').length - 1, 49);
    await until(transport, () => received.length === 50);
    assert.deepEqual(
      received.map(indexOf),
      Array.from({ length: 50 }, (_, i) => i),
    );
    await transport.close();
    await closed;
  });

  it('keeps the order across turns: nothing goes out at once while a batch waits', async () => {
    const { transport, received, closed } = echoTransport();
    await transport.start();
    let i = 0;
    for (let turn = 0; turn < 5; turn++) {
      const sends = [transport.send(note(i++)), transport.send(note(i++)), transport.send(note(i++))];
      await new Promise<void>((resolve) => setImmediate(resolve));
      sends.push(transport.send(note(i++)));
      await Promise.all(sends);
    }
    await until(transport, () => received.length === i);
    assert.deepEqual(
      received.map(indexOf),
      Array.from({ length: i }, (_, k) => k),
    );
    await transport.close();
    await closed;
  });

  it('writes what was sent before a close before the end of input', async () => {
    const { transport, stderr, closed } = echoTransport();
    await transport.start();
    const sends = Array.from({ length: 5 }, (_, i) => transport.send(note(i)));
    await transport.close();
    await Promise.all(sends);
    await closed;
    assert.deepEqual(stderr, ['lines 5']);
  });

  it('refuses a send once the process is gone, and a batch whose process went before it was written', async () => {
    const { transport, closed } = echoTransport();
    await transport.start();
    void transport.send(note(0));
    const queued = transport.send(note(1));
    // The process dies before the turn ends (its stdin destroyed with it).
    (transport as unknown as { _process: { stdin: net.Socket } })._process.stdin.destroy();
    await assert.rejects(queued, /Not connected/);
    await transport.close();
    await closed;
    await assert.rejects(transport.send(note(2)), /Not connected/);
  });
});

describe('parseMessageLine', () => {
  const lines = [
    { jsonrpc: '2.0', id: 1, result: { taskId: 't', status: 'working' } },
    { jsonrpc: '2.0', id: 'a', result: {} },
    { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } },
    { jsonrpc: '2.0', error: { code: -32700, message: 'parse' } },
    { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't' } },
    { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 't' } },
    // refused, each for its own reason
    { jsonrpc: '2.0', id: 1, result: {}, method: 'x' },
    { jsonrpc: '1.0', id: 1, result: {} },
    { jsonrpc: '2.0', id: 1.5, result: {} },
    { jsonrpc: '2.0', id: 1, result: 'not an object' },
    { jsonrpc: '2.0', id: 1, result: {}, extra: true },
    { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'bad' } },
    { jsonrpc: '2.0', method: 5 },
    { jsonrpc: '2.0', id: null, method: 'x' },
    { jsonrpc: '2.0' },
    [],
    'text',
    null,
  ];
  for (const value of lines) {
    it(`agrees with the SDK on ${JSON.stringify(value)}`, () => {
      const line = JSON.stringify(value);
      let sdk: unknown;
      let sdkError: unknown;
      try {
        sdk = deserializeMessage(line);
      } catch (e) {
        sdkError = e;
      }
      if (sdkError) {
        assert.throws(() => parseMessageLine(line), (e: unknown) => (e as Error).message === (sdkError as Error).message);
      } else {
        assert.deepEqual(parseMessageLine(line), sdk);
      }
    });
  }

  it('throws a SyntaxError for a line that is not JSON (logged as noise, not an error)', () => {
    assert.throws(() => parseMessageLine('server starting...'), SyntaxError);
  });
});
