// Runs in the first session, before the window reload: leaves a 2026-07-28 task (the Tasks
// extension on the runner's "demo-2026-http" server, which outlives the reload) waiting for input
// — its inputRequests ask a form that nobody answers here. afterReload/input2026.test.ts answers it.
import * as assert from 'node:assert/strict';
import { extensionApi, until } from '../util';

suite('before a window reload (2026-07-28)', () => {
  test('leaves a 2026-07-28 task waiting for input on a server that survives the reload', async function () {
    this.timeout(90_000);
    const { api } = await extensionApi();
    await until(api, () => api.registry.get('demo-2026-http')?.state.kind === 'running', 'demo-2026-http to run', 60_000);
    const server = api.registry.get('demo-2026-http')!;
    assert.equal(server.state.kind === 'running' ? server.state.protocolVersion : undefined, '2026-07-28');
    const key = await api.tracker.callTool(server, { name: 'ext_ask_name' }, {});
    assert.equal(api.tracker.get(key)?.wire, '2026-07-28');
    // Its request waits for the user (mcpTasks.prompts.open "notify"); it is left unanswered.
    await until(api, () => api.tracker.get(key)?.task?.status === 'input_required' && api.prompts.waitingIds.length + (api.prompts.activeId ? 1 : 0) > 0, 'the task to wait for input', 60_000);
    await api.tracker.flush();
  });
});
