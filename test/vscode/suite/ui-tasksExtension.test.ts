// The 2026-07-28 Tasks extension in the real UI: the demo workspace's "demo-2026"
// server declares io.modelcontextprotocol/tasks; a tool call becomes a task on that wire, the
// input it needs mid-task (an elicitation in its inputRequests) comes up as the same form as a
// direct request, the answer goes back with tasks/update, and the result document names the wire.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import { uiBridgeOrSkip } from '../bridge';
import { openWithRespond } from '../respond';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo', 'demo-2026');
});

suite('Tasks extension (2026-07-28) beside 2025-11-25', () => {
  cleanUpAfterEachTest(() => api);

  test('ext_ask_name on demo-2026: its inputRequests form, answered; completed on the 2026-07-28 wire, shown in its document', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const server = api.registry.get('demo-2026')!;
    const key = await api.tracker.callTool(server, { name: 'ext_ask_name' }, {});
    assert.equal(api.tracker.get(key)?.wire, '2026-07-28');
    // Input a task needs waits for Respond… like any request (mcpTasks.prompts.open "notify").
    await until(api, () => api.prompts.waitingIds.length > 0 || api.prompts.activeId !== undefined, 'the input request to wait', 60_000);
    if (api.prompts.activeId === undefined) await openWithRespond(ui, 'ext', { row: 'Please enter your name', expect: { quickInputTitle: 'Please enter your name.', quickInputFocused: true } });
    await ui.assert({ name: 'ext-form', expect: { quickInputTitle: 'Please enter your name.', quickInputFocused: true }, timeoutMs: 60_000, screenshot: true });
    await ui.assert({ name: 'ext-form-name', actions: [{ type: 'Luca' }, { press: 'Enter' }], expect: { quickInputActiveRow: 'Accept' } });
    await ui.assert({ name: 'ext-form-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    const item = () => api.view.item(`sent:${api.tracker.get(key)?.key ?? key}`) ?? api.view.items().find((i) => i.direction === 'sent' && i.title === 'ext_ask_name');
    await until(api, () => item()?.state === 'completed' && !!item()?.outcome, 'ext_ask_name to complete');
    const done = item()!;
    assert.equal(done.wire, '2026-07-28');
    assert.ok(done.outcome?.kind === 'result' && JSON.stringify(done.outcome.result).includes('Hello, Luca!'), JSON.stringify(done.outcome));
    await ui.assert({ name: 'ext-tree', actions: [{ openView: true }], expect: { treeRows: ['demo-2026', 'ext_ask_name'] }, screenshot: true });

    await ui.assert({ name: 'ext-retrieve', actions: [{ runCommand: 'MCP Tasks: Retrieve Task Result…' }], expect: { quickInputRow: 'ext_ask_name' } });
    await ui.assert({ name: 'ext-retrieve-open', actions: [{ type: done.taskId }, { waitFor: { quickInputActiveRow: 'ext_ask_name' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    // Rendered (Markdown preview), named after the tool; read the same document through its URI (with this window's token).
    await until(api, () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.includes('ext_ask_name result'))), 'the result document to open');
    const text = (await vscode.workspace.openTextDocument(api.taskDocumentUri(done))).getText();
    assert.ok(text.includes(done.taskId), 'the document of this task');
    assert.match(text, /\| wire \| 2026-07-28 \(Tasks extension io\.modelcontextprotocol\/tasks\) \|/);
    assert.match(text, /Hello, Luca!/);
    await ui.screenshot('ext-result-document');
  });
});
