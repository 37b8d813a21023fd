// Runs last in the first session: leaves sent tasks for the after-reload suite (afterReload/),
// which runs in a new extension host on the same workspace storage.
import * as assert from 'node:assert/strict';
import { extensionApi, until } from '../util';

suite('before a window reload', () => {
  test('leaves a finished task with its result, a task running on an HTTP server that survives, and one on a stdio server the server host keeps', async function () {
    this.timeout(90_000);
    const { api } = await extensionApi();
    await until(api, () => api.registry.get('demo')?.state.kind === 'running' && api.registry.get('demo-http')?.state.kind === 'running', 'both demo servers').catch((e) => {
      throw new Error(`${e.message}: ${api.registry.connections.map((c) => `${c.id}=${JSON.stringify(c.state)}`).join('; ')}`);
    });
    const demo = api.registry.get('demo')!;
    const demoHttp = api.registry.get('demo-http')!;
    const echoKey = await api.tracker.callTool(demo, { name: 'quick_echo', execution: { taskSupport: 'optional' } }, { text: 'kept across reloads', delayMs: 10 });
    await until(api, () => !!api.tracker.get(echoKey)?.outcome, 'quick_echo to finish with its result');
    // Runs ~15 s: it finishes while the window reloads, on a server that outlives the window.
    const httpKey = await api.tracker.callTool(demoHttp, { name: 'long_build', execution: { taskSupport: 'required' } }, { steps: 30, stepMs: 500 });
    // On the stdio server, which the server host keeps running through the reload (src/core/serverHost/):
    // runs ~30 s, finishing after it, in the same process and session.
    const stdioKey = await api.tracker.callTool(demo, { name: 'long_build', execution: { taskSupport: 'required' } }, { steps: 60, stepMs: 500 });
    assert.equal(api.tracker.get(httpKey)?.phase, 'tracking');
    assert.equal(api.tracker.get(stdioKey)?.phase, 'tracking');
    await api.tracker.flush();
  });
});
