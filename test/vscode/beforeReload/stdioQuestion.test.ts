// Runs in the first session, before the window reload: leaves a 2025-11-25 task on the stdio "demo"
// server (kept running through the reload by the server host, src/core/serverHost/) waiting for
// input — confirm_deploy asks its form on the task's tasks/result stream, and nobody answers it
// here. afterReload/stdioQuestion.test.ts finds the question asked again and answers it.
import * as assert from 'node:assert/strict';
import { extensionApi, until } from '../util';

/** The service named in the call: afterReload/stdioQuestion.test.ts finds the task (and its question) by it. */
const KEPT_SERVICE = 'asked-across-reload';

suite('before a window reload (a question on stdio)', () => {
  test('leaves a stdio task whose question waits for the user, unanswered, on the server the server host keeps', async function () {
    this.timeout(90_000);
    const { api } = await extensionApi();
    await until(api, () => api.registry.get('demo')?.state.kind === 'running', 'demo to run', 60_000);
    const demo = api.registry.get('demo')!;
    const key = await api.tracker.callTool(demo, { name: 'confirm_deploy', execution: { taskSupport: 'required' } }, { service: KEPT_SERVICE, version: '7.0.0', prepareMs: 0 });
    assert.equal(api.tracker.get(key)?.wire, '2025-11-25');
    const rowId = `sent:${key}`;
    // Its question waits for the user under the task (mcpTasks.prompts.open "notify"): left unanswered.
    const question = () => api.view.childrenOf(rowId).find((c) => c.state === 'waitingForUser' && api.prompts.waitingIds.includes(c.id));
    await until(api, () => api.view.item(rowId)?.state === 'inputRequired' && !!question(), 'the task to wait for input, its question waiting for the user', 60_000);
    assert.equal(question()!.method, 'elicitation/create');
    // Written now, with the question kept on the task's record (requestor/keptQuestion.ts): the
    // next window reads it from there to ask it again.
    await api.tracker.flush();
  });
});
