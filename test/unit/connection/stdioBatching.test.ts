/**
 * Writes to a stdio server batched per event-loop turn (connection/stdioBatching.ts): the first
 * message of a turn goes out at once, the rest of the turn in one write at its end, in order.
 * Also against the SDK's real StdioClientTransport, so an SDK upgrade that hides its process
 * differently shows up here rather than as a silent loss of the batching.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { batchWritesPerTurn } from '../../../src/core/connection/stdioBatching.js';

/** A stdin that records each system-call-sized write: one entry per `_write`, one per `_writev` (all its chunks). */
function recordingStdin(): { stdin: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const stdin = new Writable({
    write(chunk: Buffer, _enc, cb) {
      writes.push([chunk.toString()]);
      cb();
    },
    writev(chunks, cb) {
      writes.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      cb();
    },
  });
  return { stdin, writes };
}

/** A transport shaped like the SDK's StdioClientTransport (the child's stdin in `_process`). */
function fakeStdio(stdin: Writable): Transport {
  const t = {
    _process: { stdin },
    start: async () => undefined,
    close: async () => undefined,
    send(message: JSONRPCMessage): Promise<void> {
      return new Promise((resolve) => {
        if (t._process.stdin.write(`${JSON.stringify(message)}\n`)) resolve();
        else t._process.stdin.once('drain', resolve);
      });
    },
  };
  return t;
}

const msg = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tasks/get', params: { taskId: `t${id}` } });
const turnEnd = () => new Promise<void>((r) => setImmediate(r));

describe('stdio writes batched per event-loop turn', () => {
  it('a lone message is written at once, before send returns', async () => {
    const { stdin, writes } = recordingStdin();
    const t = fakeStdio(stdin);
    batchWritesPerTurn(t);
    void t.send(msg(1));
    assert.equal(writes.length, 1, 'written synchronously');
    await turnEnd();
    assert.deepEqual(writes, [[`${JSON.stringify(msg(1))}\n`]]);
  });

  it('further messages of the same turn go out together when the turn ends, in order', async () => {
    const { stdin, writes } = recordingStdin();
    const t = fakeStdio(stdin);
    batchWritesPerTurn(t);
    for (let i = 1; i <= 5; i++) void t.send(msg(i));
    assert.equal(writes.length, 1, 'only the first went out during the turn');
    await turnEnd();
    assert.equal(writes.length, 2, 'the other four in one write');
    assert.deepEqual(
      writes.flat().map((line) => (JSON.parse(line) as { id: number }).id),
      [1, 2, 3, 4, 5],
    );
    // The next turn starts afresh.
    void t.send(msg(6));
    assert.equal(writes.length, 3);
    await turnEnd();
  });

  it('a large burst is written in pieces below the high-water mark, so send never waits for drain because of batching', async () => {
    const { stdin, writes } = recordingStdin();
    const t = fakeStdio(stdin);
    batchWritesPerTurn(t);
    const big = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tasks/get', params: { taskId: 'x'.repeat(1000) } });
    const sends = Array.from({ length: 40 }, (_, i) => t.send(big(i)));
    assert.ok(stdin.writableLength < stdin.writableHighWaterMark, `held ${stdin.writableLength} bytes`);
    await turnEnd();
    await Promise.all(sends);
    assert.ok(writes.length > 2 && writes.length < 40, `${writes.length} writes for 40 messages`);
    assert.equal(writes.flat().length, 40);
  });

  it('applies to the SDK StdioClientTransport once its process is spawned', async () => {
    const t = new StdioClientTransport({ command: process.execPath, args: ['-e', 'process.stdin.resume()'], stderr: 'pipe' });
    batchWritesPerTurn(t);
    await t.start();
    try {
      const stdin = (t as unknown as { _process?: { stdin?: Writable } })._process?.stdin;
      assert.ok(stdin, 'the SDK keeps the child in _process (else batching is silently off)');
      void t.send(msg(1));
      void t.send(msg(2));
      assert.equal(stdin.writableCorked, 1, 'the second message of the turn is held');
      await turnEnd();
      assert.equal(stdin.writableCorked, 0, 'and written when the turn ends');
    } finally {
      await t.close();
    }
  });
});
