// The product in a real VS Code against the demo server (examples/demo/.vscode/mcp.json):
// the tree shows tasks of both directions, the status bar follows them, the palette commands
// cancel and retrieve, and requests from the server are answered through quick picks.
// UI steps go through the offline runner's bridge (skipped under @vscode/test-electron).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import { uiBridgeOrSkip } from '../bridge';
import { extensionApi, until } from '../util';
import { openWithRespond } from '../respond';

let api: McpTasksApi;
let demo: McpConnection;

suiteSetup(async function () {
  this.timeout(90_000);
  ({ api } = await extensionApi());
  await until(api, () => api.registry.get('demo')?.state.kind === 'running', 'the demo server to run', 60_000);
  demo = api.registry.get('demo')!;
});

const sent = (tool: string) => api.view.items().find((i) => i.direction === 'sent' && i.title === tool);

suite('MCP Tasks with the demo server', () => {
  test('activation is registration only (fast) and the demo server runs', () => {
    assert.ok(api.activationTimeMs < 1000, `activate() took ${api.activationTimeMs} ms`);
    assert.equal(demo.state.kind, 'running');
    const caps = demo.serverCapabilities;
    assert.ok(caps?.tasks?.requests?.tools?.call, 'the demo server supports tool tasks');
  });

  test('the tree shows the server with Sent and Received', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    await ui.assert({ name: 'tree-server', actions: [{ openView: true }], expect: { treeRows: ['demo', 'Sent', 'Received'] }, screenshot: true });
  });

  test('status bar: hidden while idle, counts a running task, and the tree shows it (sent)', async function () {
    this.timeout(90_000);
    assert.equal(api.statusBarText(), '', 'hidden while nothing is active');
    const key = await api.tracker.callTool(demo, { name: 'long_build', execution: { taskSupport: 'required' } }, { steps: 60, stepMs: 500 });
    assert.match(key, /^demo\//);
    await until(api, () => sent('long_build')?.state === 'working' && !!sent('long_build')?.progress, 'long_build to report progress');
    assert.match(api.statusBarText(), /\$\(sync~spin\) 1/);
    const ui = uiBridgeOrSkip(this);
    await ui.assert({ name: 'status-bar-running', actions: [{ openView: true }], expect: { mcpStatusText: '1', treeRows: ['long_build'] }, screenshot: true });
  });

  test('"Cancel Task…" from the palette cancels the running server task (tasks/cancel reaches the server)', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    assert.equal(sent('long_build')?.state, 'working', 'needs the task of the previous test');
    await ui.assert({ name: 'cancel-pick', actions: [{ runCommand: 'MCP Tasks: Cancel Task…' }], expect: { quickInputRow: 'long_build' }, screenshot: true });
    await ui.assert({ name: 'cancel-choose', actions: [{ type: 'long_build' }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    // The cancelled status comes from the server's answer to tasks/cancel (or its tasks/get afterwards).
    await until(api, () => sent('long_build')?.task?.status === 'cancelled', 'the server to report the task cancelled');
    await until(api, () => api.statusBarText() === '', 'the status bar to hide');
    await ui.assert({ name: 'after-cancel', actions: [{ openView: true }], expect: { treeRows: ['long_build'] }, screenshot: true });
  });

  test('a received sampling task waits in the background, is opened with "Respond…" and answered by writing the reply', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    await api.tracker.callTool(demo, { name: 'ask_model', execution: { taskSupport: 'optional' } }, { prompt: 'What is six times seven?' });
    await until(api, () => api.view.items().some((i) => i.direction === 'received' && i.title === 'Sampling' && i.state === 'waitingForUser'), 'the sampling task to wait for the user');
    await ui.assert({ name: 'received-waiting', actions: [{ openView: true }], expect: { treeRows: ['Sampling', 'waiting for you', 'ask_model'], mcpStatusText: '1' }, screenshot: true });
    // The sampling request nests under the ask_model task that caused it, and the two count once.
    assert.equal(api.statusBarText(), '$(sync~spin) 1 $(bell-dot) 1');
    await openWithRespond(ui, 'consent', { row: 'Sampling', expect: { quickInputRow: 'Write the reply myself', quickInputFocused: true }, screenshot: true });
    // The reply is written in an editor (with the request beside it) and sent with "Send Reply".
    await ui.assert({ name: 'write-reply', actions: [{ type: 'Write the reply' }, { waitFor: { quickInputActiveRow: 'Write the reply' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    // Its opening over (the request rendered beside it): nothing takes the focus from here on.
    await until(api, () => api.replies.shownUris.length === 1 && vscode.window.activeTextEditor?.document.uri.scheme === 'mcp-tasks-reply', 'the reply editor to open');
    await ui.assert({ name: 'reply-typed', actions: [{ waitFor: { editorFocused: 'Reply to' } }, { type: 'Forty-two.' }], expect: { quickInputVisible: false } });
    await until(api, () => vscode.window.activeTextEditor?.document.getText() === 'Forty-two.', 'the reply to be typed');
    await ui.assert({ name: 'reply-sent', actions: [{ runCommand: 'MCP Tasks: Send Reply' }], expect: { quickInputVisible: false } });
    await until(api, () => sent('ask_model')?.state === 'completed' && !!sent('ask_model')?.outcome, 'ask_model to complete with its result');
    const received = api.view.items().find((i) => i.direction === 'received' && i.title === 'Sampling')!;
    assert.equal(received.state, 'completed');
    const outcome = sent('ask_model')!.outcome;
    assert.ok(outcome?.kind === 'result' && JSON.stringify(outcome.result).includes('Forty-two.'), `the server got the reply: ${JSON.stringify(outcome)}`);
  });

  test('an elicitation from the demo server (input_required) is answered through the quick-pick form', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    await api.tracker.callTool(demo, { name: 'confirm_deploy', execution: { taskSupport: 'required' } }, { service: 'api', version: '2.1.0' });
    // It waits for Respond like every request (mcpTasks.prompts.open: notify); the only one waiting opens at once.
    await until(api, () => api.prompts.waitingIds.length === 1, 'the deploy form to wait for the user');
    await ui.assert({ name: 'elicit-step1', actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputRow: 'Production' }, screenshot: true, timeoutMs: 30_000 });
    const s1 = await ui.state();
    assert.match(s1.quickInput.title, /"demo" asks: Deploy api@2\.1\.0\?/, 'the server name and message are visible');
    assert.equal(sent('confirm_deploy')?.state, 'inputRequired');
    await ui.assert({ name: 'elicit-step2', actions: [{ type: 'Production' }, { press: 'Enter' }], expect: { quickInputRow: 'Yes' } });
    await ui.assert({ name: 'elicit-review', actions: [{ type: 'Yes' }, { press: 'Enter' }], expect: { quickInputRow: 'Accept' }, screenshot: true });
    await ui.assert({ name: 'elicit-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => sent('confirm_deploy')?.state === 'completed' && !!sent('confirm_deploy')?.outcome, 'confirm_deploy to complete with its result');
    const outcome = sent('confirm_deploy')!.outcome;
    assert.ok(outcome?.kind === 'result' && JSON.stringify(outcome.result).includes('to production'), JSON.stringify(outcome));
  });

  test('"Retrieve Task Result…" opens the result document (mcp-task://)', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    assert.equal(sent('confirm_deploy')?.state, 'completed', 'needs the task of the previous test');
    await ui.assert({ name: 'retrieve-pick', actions: [{ runCommand: 'MCP Tasks: Retrieve Task Result…' }], expect: { quickInputRow: 'confirm_deploy' } });
    await ui.assert({ name: 'retrieve-open', actions: [{ type: 'confirm_deploy' }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    // Rendered (Markdown preview), named after the tool.
    await until(api, () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.includes('confirm_deploy result'))), 'the result document to open');
    // The preview may render in another extension host: read the same document through its URI
    // (with this window's token: a URI without it is not served, see resultDocuments.ts).
    const doc = await vscode.workspace.openTextDocument(api.taskDocumentUri(sent('confirm_deploy')!));
    assert.match((await vscode.workspace.openTextDocument(doc.uri.with({ query: '' }))).getText(), /Task not found/, 'not without the token');
    assert.equal(doc.uri.authority, 'demo');
    assert.match(doc.getText(), /# confirm_deploy/);
    assert.match(doc.getText(), /Deployed api@2\.1\.0 to production/);
    await ui.screenshot('result-document');
  });

  test('a failed tool task keeps its payload (isError result) and shows as failed', async function () {
    this.timeout(60_000);
    await api.tracker.callTool(demo, { name: 'flaky_job', execution: { taskSupport: 'required' } }, {});
    await until(api, () => sent('flaky_job')?.state === 'failed' && !!sent('flaky_job')?.outcome, 'flaky_job to fail with its payload');
    const o = sent('flaky_job')!.outcome!;
    assert.ok(o.kind === 'result' && (o.result as { isError?: boolean }).isError === true);
    assert.match(sent('flaky_job')!.task!.statusMessage ?? '', /Failed/);
  });
});
