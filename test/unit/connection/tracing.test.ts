/**
 * The stdio shape of a transport wrapper (connection/tracing.ts `mirrorStdioShape`): a wrapper of a
 * stdio transport shows that transport's `pid` and `stderr` as they are now (the SDK's version
 * negotiation tells stdio by them), a wrapper of an HTTP transport has neither, and every wrapper
 * reads them through the same getter, so the wrappers of all connections share one hidden class.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { NULL_LOG } from '../../../src/core/base/log.js';
import { RedactingLog } from '../../../src/core/base/redact.js';
import { MessageBoundsTransport } from '../../../src/core/connection/messageBounds.js';
import { TracingTransport } from '../../../src/core/connection/tracing.js';

class FakeStdio implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  pid: number | null = null;
  stderr: object | null = null;
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(): Promise<void> {}
}

const fakeHttp = (): Transport => ({ start: async () => undefined, close: async () => undefined, send: async () => undefined });
const wrap = (inner: Transport) => new TracingTransport(new MessageBoundsTransport(inner), new RedactingLog(NULL_LOG));

describe('the stdio shape of transport wrappers', () => {
  test('a wrapper of a stdio transport shows its pid and stderr as they are now; one of an HTTP transport has neither', () => {
    const stdio = new FakeStdio();
    const wrapped = wrap(stdio) as Transport & { pid?: unknown; stderr?: unknown };
    assert.ok('pid' in wrapped && 'stderr' in wrapped);
    assert.equal(wrapped.pid, null, 'not started yet');
    const stream = {};
    stdio.pid = 4242;
    stdio.stderr = stream;
    assert.equal(wrapped.pid, 4242);
    assert.equal(wrapped.stderr, stream);
    const http = wrap(fakeHttp());
    assert.ok(!('pid' in http) && !('stderr' in http), 'an HTTP channel must not look like stdio');
  });

  test('the wrappers of two connections read pid and stderr through the same getter (one hidden class for all)', () => {
    const a = wrap(new FakeStdio());
    const b = wrap(new FakeStdio());
    for (const key of ['pid', 'stderr']) {
      const getterA = Object.getOwnPropertyDescriptor(a, key)?.get;
      const getterB = Object.getOwnPropertyDescriptor(b, key)?.get;
      assert.equal(typeof getterA, 'function', `${key} is an accessor`);
      assert.equal(getterA, getterB, `${key}: one getter for every wrapper, not a closure each`);
    }
  });
});
