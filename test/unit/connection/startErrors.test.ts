// The real cause under "fetch failed" and a bare spawn error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describeStartFailure, startFailureMessage } from '../../../src/core/connection/startErrors.js';

function sysError(code: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${code} something`), { code, ...extra });
}

test('a real refused fetch: "nothing listens on 127.0.0.1:<port>"', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const err = await fetch(`http://127.0.0.1:${port}/mcp`).then(
    () => assert.fail('connected'),
    (e: unknown) => e,
  );
  assert.match(String((err as Error).message), /fetch failed/);
  assert.match(startFailureMessage(err), new RegExp(`^nothing listens on 127\\.0\\.0\\.1:${port} \\(connection refused, ECONNREFUSED\\)`));
});

test('a real spawn of a missing program: "not found: is it on PATH?"', async () => {
  const err = await new Promise<unknown>((resolve) => spawn('definitely-not-a-command-mcp-tasks').on('error', resolve));
  assert.deepEqual(describeStartFailure(err), { kind: 'spawn', message: 'the program "definitely-not-a-command-mcp-tasks" was not found: is it on PATH? (ENOENT)' });
});

test('EACCES on spawn: permission denied', () => {
  const e = sysError('EACCES', { syscall: 'spawn /tmp/x.sh', path: '/tmp/x.sh' });
  assert.match(startFailureMessage(e), /the program "\/tmp\/x\.sh" cannot be run: permission denied \(EACCES\); is it executable\?/);
});

test('ENOTFOUND nested in an AggregateError under "fetch failed"', () => {
  const inner = new AggregateError([sysError('ENOTFOUND', { hostname: 'no-such-host.invalid', syscall: 'getaddrinfo' })]);
  const e = new TypeError('fetch failed', { cause: inner });
  assert.equal(startFailureMessage(e, { url: 'https://no-such-host.invalid/mcp' }), 'the host no-such-host.invalid was not found (ENOTFOUND): check the URL');
});

test('a TLS failure names TLS and the host', () => {
  const e = new TypeError('fetch failed', { cause: sysError('CERT_HAS_EXPIRED') });
  const d = describeStartFailure(e, { url: 'https://example.test:8443/mcp' });
  assert.equal(d?.kind, 'tls');
  assert.match(d?.message ?? '', /^the TLS connection to example\.test:8443 failed: .*\(CERT_HAS_EXPIRED\)$/);
});

test('anything else keeps its own message', () => {
  assert.equal(describeStartFailure(new Error('Unexpected token')), undefined);
  assert.equal(startFailureMessage(new Error('Unexpected token')), 'Unexpected token');
});
