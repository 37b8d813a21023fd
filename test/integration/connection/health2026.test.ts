/**
 * After a transport error a running HTTP connection asks its server whether it is still there:
 * `ping` on 2025-11-25, `server/discover` on 2026-07-28 (which has no `ping`). A server that answers
 * keeps its connection; one that is gone is reconnected with backoff.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionState } from '../../../src/core/connection/connection.js';
import { waitFor } from '../../helpers/host.js';
import { host2026, http2026, startHttp2026, WAIT_MS } from '../../helpers/rev2026.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

/** Reports a transport error to the connection, as a dropped stream of the SDK's transport does. */
function transportError(h: Awaited<ReturnType<typeof host2026>>): void {
  const transport = h.connection.client.transport;
  assert.ok(transport?.onerror, 'the connected client listens to its transport\'s errors');
  transport.onerror(new Error('the stream of server messages dropped'));
}

test('2026-07-28 over HTTP: a transport error with the server still there keeps the connection (server/discover answers)', { timeout: 60_000 }, async () => {
  const { url, child } = await startHttp2026();
  const h = await host2026(http2026('health-2026', url));
  try {
    const states: ConnectionState[] = [];
    h.connection.onDidChangeState((s) => states.push(s));
    const before = h.log.lines.length;
    transportError(h);
    // The check is over when its server/discover was answered, or when the state changed (taken for gone).
    const checked = () => {
      const after = h.log.lines.slice(before);
      const asked = after.findIndex((l) => l.startsWith('trace ▶') && l.includes('"method":"server/discover"'));
      return states.length > 0 || (asked >= 0 && after.slice(asked + 1).some((l) => l.startsWith('trace ◀')));
    };
    await waitFor(h.log.onLine, checked, 'the check to be answered', WAIT_MS);
    // A call after the check still goes through the same connection.
    const r = await h.connection.client.callTool({ name: 'ext_echo', arguments: { text: 'still here' } });
    assert.match(JSON.stringify(r.content), /still here/);
    assert.deepEqual(states, [], 'no state change: not taken for gone');
    assert.ok(!h.log.lines.some((l) => /unreachable|not supported/.test(l)), h.log.lines.filter((l) => /unreachable|not supported/.test(l)).join('\n'));
  } finally {
    h.dispose();
    child.kill();
  }
});
