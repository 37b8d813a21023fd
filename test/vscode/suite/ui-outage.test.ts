// An HTTP server that is down for a while and back by itself: the connection notices, keeps trying
// (never giving up), and is running again without "Restart Server"; the status-bar item follows the
// outage and goes when it ends; the server answers calls again. The runner puts the demo HTTP server
// behind a proxy (scripts/lib/outageProxy.mjs) whose control takes it down for 20 s.
import * as assert from 'node:assert/strict';
import type { McpTasksApi } from '../../../src/extension';
import type { ConnectionState } from '../../../src/core/connection/connection';
import { uiBridgeOrSkip } from '../bridge';
import { apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';

const NAME = 'demo-outage';
let api: McpTasksApi;

suite('an HTTP server that goes down for a while', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    if (!process.env.MCP_TASKS_E2E_OUTAGE) this.skip();
    api = await apiWithServersRunning(NAME);
  });
  cleanUpAfterEachTest(() => api);

  test('down 20 s, it is back by itself: reconnected without a restart, the status-bar item shows the outage and goes', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const c = api.registry.get(NAME)!;
    const states: ConnectionState[] = [];
    const sub = c.onDidChangeState((s) => states.push(s));
    try {
      const down = await fetch(`${process.env.MCP_TASKS_E2E_OUTAGE}/down?ms=20000`, { method: 'POST' });
      assert.equal(down.status, 200);
      await until(api, () => c.state.kind === 'error', 'the outage to be noticed', 60_000);
      await ui.assert({ name: 'outage-noticed', expect: { statusBarText: NAME }, screenshot: true });
      await until(api, () => c.state.kind === 'running', 'the server to be back without a restart', 120_000);
      const failures = states.filter((s): s is Extract<ConnectionState, { kind: 'error' }> => s.kind === 'error');
      assert.ok(failures.length >= 2, `tried more than once meanwhile: ${failures.map((f) => f.message).join(' / ')}`);
      for (const f of failures) {
        assert.ok(f.retryAt !== undefined, `every failure is followed by another try: ${f.message}`);
        assert.doesNotMatch(f.message, /not reconnecting again/);
      }
      await until(api, () => !api.serverErrors.text.includes(NAME), 'the status-bar item to go', 15_000);
      const r = await c.client.callTool({ name: 'quick_echo', arguments: { text: 'back' } });
      assert.match(JSON.stringify(r.content), /back/);
    } finally {
      sub.dispose();
    }
  });
});
