// The language-model tools in a real VS Code, through `vscode.lm.tools` and
// `vscode.lm.invokeTool` the way a chat participant or agent calls them. Outside a chat request
// there is no toolInvocationToken; VS Code 1.139 then runs prepareInvocation and shows its
// confirmation as a modal dialog, which the workbench auto-accepts while extension tests run
// (DialogService.skipDialogs) — so the confirmations' content is checked by building them here.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import { cancelConfirmation, startConfirmation } from '../../../src/ui/api/agentTools';
import { uiBridgeOrSkip } from '../bridge';
import { apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';

let api: McpTasksApi;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
});

const NAMES = ['mcpTasks_listTools', 'mcpTasks_startTask', 'mcpTasks_getTaskStatus', 'mcpTasks_getTaskResult', 'mcpTasks_cancelTask'];

/** Invokes a tool as an agent outside a chat request would, and parses its JSON text reply. */
async function invoke(name: string, input: object): Promise<Record<string, unknown>> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  return JSON.parse(text) as Record<string, unknown>;
}

suite('language-model tools (chat agent)', () => {
  cleanUpAfterEachTest(() => api);

  test('language-model tools: the five tools are registered with their input schemas', () => {
    for (const name of NAMES) {
      const info = vscode.lm.tools.find((t) => t.name === name);
      assert.ok(info, `${name} is in vscode.lm.tools`);
      assert.ok(info.description.length > 80, `${name} has a model description`);
      assert.equal((info.inputSchema as { type?: string } | undefined)?.type, 'object', `${name} has an input schema`);
      assert.ok(info.tags.includes('mcp-tasks'));
    }
  });

  test('language-model tools: list shows demo\'s tools with their task support', async function () {
    this.timeout(60_000);
    const r = await invoke('mcpTasks_listTools', { server: 'demo' });
    const demo = (r.servers as Array<{ server: string; tools: Array<{ name: string; taskSupport: string; runsAs: string }> }>)[0]!;
    assert.equal(demo.server, 'demo');
    const byName = new Map(demo.tools.map((t) => [t.name, t]));
    assert.deepEqual([byName.get('long_build')?.taskSupport, byName.get('long_build')?.runsAs], ['required', 'task']);
    assert.deepEqual([byName.get('forbidden_echo')?.taskSupport, byName.get('forbidden_echo')?.runsAs], ['forbidden', 'plain']);
  });

  test('language-model tools: start answers at once with a task id; status, then the result of the finished task', async function () {
    this.timeout(90_000);
    const started = await invoke('mcpTasks_startTask', { server: 'demo', tool: 'quick_echo', arguments: { text: 'from the agent', delayMs: 1500 } });
    assert.equal(started.ranAsTask, true, JSON.stringify(started));
    assert.equal(started.status, 'working');
    const taskId = String(started.taskId);
    assert.match(String(started.message), /mcpTasks_getTaskResult/);
    const item = api.view.item(`sent:${taskId}`);
    assert.equal(item?.startedBy, 'chat', 'the tree item is marked as started by chat');
    const status = await invoke('mcpTasks_getTaskStatus', { taskId });
    assert.equal(status.taskId, taskId);
    const result = await invoke('mcpTasks_getTaskResult', { taskId, waitSeconds: 60 });
    assert.equal(result.status, 'completed', JSON.stringify(result));
    assert.equal(result.isError, false);
    assert.equal(result.result, 'from the agent');
  });

  test('language-model tools: a tool that cannot run as a task runs plainly and returns its result', async function () {
    this.timeout(60_000);
    const r = await invoke('mcpTasks_startTask', { server: 'demo', tool: 'forbidden_echo', arguments: { text: 'plain please' } });
    assert.equal(r.ranAsTask, false);
    assert.equal(r.result, 'plain please');
  });

  test('language-model tools: bad input and unknown tools come back as errors the model can act on', async function () {
    this.timeout(60_000);
    const missing = await invoke('mcpTasks_startTask', { server: 'demo' });
    assert.equal(missing.error, 'Invalid input for mcpTasks_startTask: "tool" is required.');
    const unknown = await invoke('mcpTasks_startTask', { server: 'demo', tool: 'no_such_tool' });
    assert.match(String(unknown.error), /has no tool "no_such_tool".*long_build/);
    const notChat = await invoke('mcpTasks_getTaskResult', { taskId: 'demo/not-a-task' });
    assert.match(String(notChat.error), /was started by chat/);
  });

  test('language-model tools: the agent-started task shows "by chat" in the tree, the person cancels it there, the agent sees it cancelled', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const started = await invoke('mcpTasks_startTask', { server: 'demo', tool: 'long_build', arguments: { steps: 100, stepMs: 1000 } });
    const taskId = String(started.taskId);
    await until(api, () => api.view.item(`sent:${taskId}`)?.progress !== undefined, 'the build to report progress');
    await ui.assert({ name: 'chat-task-in-tree', actions: [{ openView: true }], expect: { treeRows: ['long_build by chat'] }, screenshot: true });
    await ui.assert({ name: 'chat-task-cancel-in-tree', actions: [{ clickTreeRowAction: { row: 'long_build by chat', action: 'Cancel Task' } }] });
    await until(api, () => api.view.item(`sent:${taskId}`)?.state === 'cancelled', 'the task to be cancelled from the tree');
    await ui.assert({ name: 'chat-task-cancelled-in-tree', expect: { treeRows: ['cancelled'] }, screenshot: true });
    const r = await invoke('mcpTasks_getTaskResult', { taskId, waitSeconds: 0 });
    assert.equal(r.status, 'cancelled');
    assert.match(String(r.message), /ended \(cancelled\) without a result/);
  });

  test('language-model tools: cancel through the tool stops the task on the server', async function () {
    this.timeout(90_000);
    const started = await invoke('mcpTasks_startTask', { server: 'demo', tool: 'long_build', arguments: { steps: 100, stepMs: 1000 } });
    const taskId = String(started.taskId);
    const r = await invoke('mcpTasks_cancelTask', { taskId });
    assert.equal(r.status, 'cancelled', JSON.stringify(r));
    await until(api, () => api.view.item(`sent:${taskId}`)?.state === 'cancelled', 'the tree to show it cancelled');
  });

  test('language-model tools: the confirmations name server, tool and arguments, with server text escaped', () => {
    const start = startConfirmation({ server: 'demo *bold* [x](command:evil)', serverDetail: 'node server.js', tool: 'long_build', args: '{\n  "steps": 3\n}' });
    assert.equal(start.title, 'Run MCP tool "long_build" on "demo *bold* [x](command:evil)"?');
    const md = start.message;
    assert.equal(md.isTrusted, false);
    assert.ok(md.value.includes('`long_build`'));
    assert.ok(md.value.includes('demo \\*bold\\* \\[x\\](command\\:evil)'), md.value);
    assert.ok(md.value.includes('```json\n{\n  "steps": 3\n}\n```'), md.value);
    const cancel = cancelConfirmation('demo/t1', undefined, undefined);
    assert.match(cancel.message.value, /did not start; nothing will be cancelled/);
  });
});

suite('walkthrough', () => {
  test('language-model tools walkthrough: "Get Started with MCP Tasks" opens on its first step', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', { category: 'mcp-tasks.mcp-tasks#gettingStarted', step: 'mcp-tasks.mcp-tasks#gettingStarted#addServer' }, false);
    await until(api, () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Welcome', 'the walkthrough to open', 30_000).catch(() => undefined);
    assert.equal(vscode.window.tabGroups.activeTabGroup.activeTab?.label, 'Welcome');
    await ui.screenshot('walkthrough');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
