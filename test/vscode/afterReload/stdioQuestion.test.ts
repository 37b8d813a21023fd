// After the window reload: the 2025-11-25 task on the stdio "demo" server left with its question
// unanswered (beforeReload/stdioQuestion.test.ts) is still input_required in the same process and
// session, which the server host kept (src/core/serverHost/). The new window asks the question
// again (requestor/keptQuestion.ts); the answer given through Respond… in the real quick input goes
// back as the JSON-RPC response the server still waits for, and the task completes with it.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { uiBridgeOrSkip } from '../bridge';
import { openWithRespond } from '../respond';
import { extensionApi, hideNotificationCenter, until } from '../util';

/** The service the before-reload test named in its call (beforeReload/stdioQuestion.test.ts). */
const KEPT_SERVICE = 'asked-across-reload';

suite('after a window reload (a question on stdio)', () => {
  test("a stdio task's question left unanswered before the reload is asked again after it, answered in the quick input, and the task completes with the answer", async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const { api } = await extensionApi();
    const find = () => api.view.items().find((i) => i.direction === 'sent' && i.serverId === 'demo' && i.title === 'confirm_deploy' && i.argsSummary?.includes(KEPT_SERVICE));
    assert.ok(find(), `the task is listed after the reload: ${api.view.items().map((i) => `${i.serverId}/${i.title}`).join(', ')}`);
    const { id: rowId, taskId } = find()!;
    await until(api, () => api.registry.get('demo')?.state.kind === 'running', 'demo to run', 60_000);
    assert.equal(api.registry.get('demo')!.continuity.kind, 'resumed', 'reattached to the same process and session');
    // Its question, asked again under the task, waits for the user.
    const question = () => api.view.childrenOf(rowId).find((c) => c.state === 'waitingForUser' && api.prompts.waitingIds.includes(c.id));
    await until(api, () => find()?.task?.status === 'input_required' && !!question(), 'its question to wait for the user again', 60_000).catch((e: Error) => {
      throw new Error(`${e.message}: the row is ${find()?.state} (${find()?.detail ?? 'no detail'})`);
    });
    assert.equal(question()!.method, 'elicitation/create');
    // What the user sees: the task's row (its arguments lead it when other confirm_deploy calls are
    // listed, follow the tool's name when not) and the question's under it, waiting (cut as the tree cuts it).
    // Both are at the top of the tree (the first server's newest call): the view is focused and Home
    // pressed, as a user would, since the bridge's wheel scrolling did not move this tree once the
    // earlier after-reload tests had left it scrolled down.
    const rows = [`service: ${KEPT_SERVICE}`, `Elicitation: Deploy ${KEPT_SERVICE}@7.0.0? Choose the environment … waiting for you`];
    await hideNotificationCenter();
    await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    await ui.assert({ name: 'reloadStdio-rows', actions: [{ openView: true }, { press: 'Home' }], expect: { treeRows: rows } });

    const form = { quickInputTitle: `"demo" asks: Deploy ${KEPT_SERVICE}@7.0.0?`, quickInputRow: 'Production', quickInputFocused: true };
    // Other requests may wait too (the 2026-07-28 one of input2026.test.ts): pick this one by its service.
    await openWithRespond(ui, 'reloadStdio', { row: `Deploy ${KEPT_SERVICE}@7.0.0`, filter: KEPT_SERVICE, expect: form, screenshot: true });
    await ui.assert({ name: 'reloadStdio-confirm', actions: [{ type: 'Production' }, { press: 'Enter' }], expect: { quickInputTitle: '(2/3)', quickInputActiveRow: 'No' } });
    await ui.assert({ name: 'reloadStdio-review', actions: [{ type: 'Yes' }, { press: 'Enter' }], expect: { quickInputTitle: '(3/3)', quickInputActiveRow: 'Accept' } });
    await ui.assert({ name: 'reloadStdio-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });

    await until(api, () => !!find()?.outcome, 'the task to end with its result', 60_000);
    assert.equal(find()!.state, 'completed', find()!.detail);
    assert.equal(find()!.taskId, taskId, 'the same task');
    const o = find()!.outcome!;
    // The server got the answer the user gave after the reload.
    assert.ok(o.kind === 'result' && JSON.stringify(o.result).includes(`Deployed ${KEPT_SERVICE}@7.0.0 to production`), JSON.stringify(o));
    assert.deepEqual((o.result as { structuredContent?: unknown }).structuredContent, { service: KEPT_SERVICE, version: '7.0.0', environment: 'production', confirmed: true });
  });
});
