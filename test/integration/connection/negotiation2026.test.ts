/**
 * Version negotiation against real servers: one that speaks only MCP 2026-07-28 (the demo server's
 * `--revision 2026-07-28` mode, on the official SDK v2, which refuses `initialize`) is reached with
 * `server/discover` and the connection says 2026-07-28; a 2025-11-25 server (the demo server's
 * default mode, SDK v1) still gets `initialize` and 2025-11-25. Over stdio and Streamable HTTP.
 * Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { DEMO, host2026, transports2026 } from '../../helpers/rev2026.js';
import { startHttpFixture, stdioDefinition, httpDefinition } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const TIMEOUT = { timeout: 60_000 };
const transports = transports2026();
const children: ChildProcess[] = [];
after(() => {
  for (const t of transports) t.stop();
  for (const c of children) c.kill();
});

describe('connection: version negotiation', () => {
  for (const transport of transports) {
    test(`${transport.name}: a server that speaks only 2026-07-28 is found with server/discover; the state and the log say 2026-07-28`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`neg-${transport.name}`));
      try {
        const state = h.connection.state;
        assert.equal(state.kind, 'running');
        assert.equal(state.kind === 'running' ? state.protocolVersion : undefined, '2026-07-28');
        assert.equal(h.connection.client.getProtocolEra(), 'modern');
        assert.ok(h.log.lines.some((l) => /connected: mcp-tasks-demo-rev2026 .*MCP 2026-07-28/.test(l)), h.log.lines.join('\n'));
        const stats = await h.stats();
        const methods = stats.requests.map((r) => r.method);
        assert.ok(methods.includes('server/discover'), `the server saw server/discover: ${methods.join(', ')}`);
        assert.ok(!methods.includes('initialize'), 'and no initialize');
        // Every request of the session carried the envelope of the negotiated revision.
        const mine = stats.requests.filter((r) => r.envelope?.clientName === 'mcp-tasks-vscode');
        assert.ok(mine.length >= 2 && mine.every((r) => r.envelope?.protocolVersion === '2026-07-28'), JSON.stringify(stats.requests));
      } finally {
        h.dispose();
      }
    });
  }

  test('stdio: a 2025-11-25 server still gets initialize and 2025-11-25', TIMEOUT, async () => {
    const h = await host2026(stdioDefinition('neg-2025-stdio', process.execPath, [DEMO]));
    try {
      assert.equal(h.connection.state.kind === 'running' ? h.connection.state.protocolVersion : undefined, '2025-11-25');
      assert.equal(h.connection.client.getProtocolEra(), 'legacy');
    } finally {
      h.dispose();
    }
  });

  test('http: a 2025-11-25 server still gets initialize and 2025-11-25', TIMEOUT, async () => {
    const { url, child } = await startHttpFixture(DEMO, ['--port', '0'], 'the 2025-11-25 demo server', 20_000);
    children.push(child);
    const h = await host2026(httpDefinition('neg-2025-http', url));
    try {
      assert.equal(h.connection.state.kind === 'running' ? h.connection.state.protocolVersion : undefined, '2025-11-25');
      assert.equal(h.connection.client.getProtocolEra(), 'legacy');
    } finally {
      h.dispose();
    }
  });
});
