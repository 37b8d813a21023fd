// Forms and prompts as a user meets them (with the reply editor, result names and the busy tool
// picker): a form never loses its input, one rule opens
// prompts, "Respond…" goes straight to the only waiting request, the reply is written in an
// editor, documents are rendered, read-only and named after what they show.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import type { TaskViewItem } from '../../../src/core/view/taskView';
import { ToolRunner } from '../../../src/ui/commands/toolRunner';
import { uiBridge, uiBridgeOrSkip } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;
let demo: McpConnection;

/** Each suite's set-up (suite-level, not root: a root hook would run around every other file's tests too). */
async function setUp(this: Mocha.Context): Promise<void> {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
  demo = api.registry.get('demo')!;
}

async function tearDown(): Promise<void> {
  if (uiBridge()) await vscode.commands.executeCommand('notifications.clearAll');
}

const PROFILE_STEPS = 13;
const step = (n: number, total = PROFILE_STEPS) => ({ quickInputTitle: `(${n}/${total})`, quickInputFocused: true });

function tabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs);
}

async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

suite('Forms never lose input; one rule opens prompts', () => {
  suiteSetup(setUp);
  // cleanUpAfterEachTest clears finished tasks after the suite, so later suites' rows stay on screen.
  cleanUpAfterEachTest(() => api);
  suiteTeardown(tearDown);
  teardown(closeAllEditors);

  test('F1 during a task-augmented form keeps the request waiting; Respond (straight to the only request) restores the typed values', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Profile kept across F1';
    const sentKey = await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message });
    const received = () => api.view.items().find((i) => i.direction === 'received' && i.title === `Elicitation: ${message}`);
    await until(api, () => received()?.state === 'waitingForUser' && api.prompts.waitingIds.includes(received()!.id), 'the form to wait for the user');
    // The server reads the state in its own terms, never a local UI hint.
    assert.equal(received()!.task?.statusMessage, "Waiting for the user's input");
    // Exactly one request waits, so Respond… opens it without asking which.
    await ui.assert({ name: 'f1-respond', actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputTitle: `"demo" asks: ${message} (1/${PROFILE_STEPS})`, quickInputFocused: true } });
    await ui.assert({ name: 'f1-typed', actions: [{ type: 'Ada Lovelace' }, { press: 'Enter' }, { waitFor: step(2) }, { type: 'ada@exa' }], expect: { ...step(2), quickInputValue: 'ada@exa' } });
    // F1: the command palette takes the quick input's place. Not an answer.
    await ui.assert({ name: 'f1-palette', actions: [{ press: 'F1' }], expect: { quickInputVisible: true, quickInputValue: '>' } });
    await until(api, () => api.prompts.waitingIds.includes(received()!.id), 'the hidden form to wait again');
    assert.equal(received()!.state, 'waitingForUser');
    assert.equal(api.view.item(`sent:${sentKey}`)?.outcome, undefined, 'nothing was answered to the server');
    await ui.assert({ name: 'f1-palette-closed', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false, activityBarBadge: '1' } });
    // Respond: the form is back at the step it was on, with the half-typed value.
    await ui.assert({
      name: 'form-restored-after-f1',
      actions: [{ runCommand: 'MCP Tasks: Respond…' }],
      expect: { ...step(2), quickInputTitle: `"demo" asks: ${message} (2/${PROFILE_STEPS})`, quickInputValue: 'ada@exa' },
      screenshot: true,
    });
    await ui.assert({ name: 'f1-back', actions: [{ click: '.quick-input-widget .codicon-quick-input-back' }], expect: { ...step(1), quickInputValue: 'Ada Lovelace' } });
    // Finish: complete the email, keep every default to the review, Accept.
    const focused: Record<number, string> = { 8: 'No', 9: 'Developer', 10: 'Visual Studio Code' };
    const actions: Parameters<typeof ui.assert>[0]['actions'] = [{ press: 'Enter' }, { waitFor: { ...step(2), quickInputValue: 'ada@exa' } }, { press: 'End' }, { type: 'mple.org' }];
    for (let n = 3; n <= PROFILE_STEPS; n++) actions.push({ press: 'Enter' }, { waitFor: { ...step(n), ...(focused[n] ? { quickInputActiveRow: focused[n] } : {}) } });
    await ui.assert({ name: 'f1-review', actions, expect: { quickInputActiveRow: 'Accept' }, timeoutMs: 20_000 });
    await ui.assert({ name: 'f1-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => !!api.view.item(`sent:${sentKey}`)?.outcome, 'collect_profile to finish');
    const saw = (api.view.item(`sent:${sentKey}`)!.outcome as unknown as { result: { structuredContent: { action: string; content: Record<string, unknown> } } }).result.structuredContent;
    assert.equal(saw.action, 'accept');
    assert.equal(saw.content.name, 'Ada Lovelace');
    assert.equal(saw.content.email, 'ada@example.org');
  });

  test('a plain request (input_required through tasks/result) follows the same rule: it waits for Respond, and F1 does not lose it', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const key = await api.tracker.callTool(demo, { name: 'confirm_deploy', execution: { taskSupport: 'required' } }, { service: 'forms', version: '3.0.0', prepareMs: 0 });
    const sent = () => api.view.item(`sent:${key}`);
    await until(api, () => api.prompts.waitingIds.length === 1 && sent()?.state === 'inputRequired', 'the deploy form to wait for the user');
    // Nothing opened by itself (mcpTasks.prompts.open = notify, the default).
    await ui.assert({ name: 'plain-waiting', actions: [{ openView: true }], expect: { quickInputVisible: false, activityBarBadge: '1' }, screenshot: true });
    await ui.assert({ name: 'plain-respond', actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputTitle: 'Deploy forms@3.0.0', quickInputRow: 'Production', quickInputFocused: true } });
    await ui.assert({ name: 'plain-step2', actions: [{ type: 'Production' }, { press: 'Enter' }], expect: { quickInputTitle: '(2/3)', quickInputActiveRow: 'No' } });
    await ui.assert({ name: 'plain-f1', actions: [{ press: 'F1' }], expect: { quickInputValue: '>' } });
    await until(api, () => api.prompts.waitingIds.length === 1, 'the hidden plain request to wait again');
    await ui.assert({ name: 'plain-f1-closed', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
    await ui.assert({ name: 'plain-restored', actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputTitle: '(2/3)', quickInputActiveRow: 'No', quickInputFocused: true }, screenshot: true });
    await ui.assert({ name: 'plain-answer', actions: [{ type: 'Yes' }, { press: 'Enter' }, { waitFor: { quickInputTitle: '(3/3)', quickInputActiveRow: 'Accept' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => sent()?.state === 'completed' && !!sent()?.outcome, 'confirm_deploy to complete');
    assert.match(JSON.stringify(sent()!.outcome), /Deployed forms@3\.0\.0 to production/);

    // The result opens rendered, named after the tool.
    await vscode.commands.executeCommand('mcpTasks.retrieveResult', { kind: 'task', id: `sent:${key}` });
    await until(api, () => tabs().some((t) => t.label.includes('confirm_deploy result')), 'the rendered result to open, named after the tool', 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; tabs: ${JSON.stringify(tabs().map((t) => t.label))}; documents: ${JSON.stringify(vscode.workspace.textDocuments.map((d) => d.uri.toString()))}`);
    });
    const tab = tabs().find((t) => t.label.includes('confirm_deploy result'))!;
    assert.ok(tab.input instanceof vscode.TabInputWebview, `a Markdown preview, not the source: ${tab.label}`);
    // The preview may render in another extension host: read the same document through its URI (with this window's token).
    const doc = await vscode.workspace.openTextDocument(api.taskDocumentUri(sent()!));
    assert.ok(doc.getText().includes('forms@3'), doc.getText().slice(0, 400));
    await ui.screenshot('result-rendered');
  });

  test('a waiting request\'s notification is withdrawn when its request goes away; answering it then says it went away', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    await vscode.commands.executeCommand('notifications.clearAll');
    const message = 'Profile gone before Respond';
    await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message });
    const received = () => api.view.items().find((i) => i.direction === 'received' && i.title === `Elicitation: ${message}`);
    await until(api, () => !!received() && api.prompts.waitingIds.includes(received()!.id), 'the form to wait');
    await ui.assert({ name: 'gone-waiting', actions: [{ showNotifications: true }], expect: { notification: message, activityBarBadge: '1' } });
    assert.ok(api.ledger.tasksOf('demo')!.cancel(received()!.taskId, 'Cancelled by the test'));
    await until(api, () => api.prompts.waitingIds.length === 0, 'the request to be withdrawn');
    // Withdrawn with it: nothing left on screen offers to answer a request that ended.
    await ui.assert({ name: 'gone-withdrawn', expect: { noNotification: message, activityBarBadge: '' }, screenshot: true });
    // Answering it anyway (a row or a pick shown a moment earlier): it says so.
    await vscode.commands.executeCommand('mcpTasks.respond', received()!.id);
    await ui.assert({ name: 'gone-respond', expect: { notification: 'is not waiting for you any more' }, screenshot: true });
    await vscode.commands.executeCommand('notifications.clearAll');
  });
});

suite('Documents, the reply editor and Run Tool…', () => {
  suiteSetup(setUp);
  // cleanUpAfterEachTest clears finished tasks after the suite, so later suites' rows stay on screen.
  cleanUpAfterEachTest(() => api);
  suiteTeardown(tearDown);
  teardown(closeAllEditors);

  test('"Write the reply myself" opens a Markdown editor beside the request; closing sends nothing; Send Reply sends', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const key = await api.tracker.callTool(demo, { name: 'ask_model', execution: { taskSupport: 'optional' } }, { prompt: 'Write me two lines' });
    const sent = () => api.view.item(`sent:${key}`);
    let received: TaskViewItem | undefined;
    await until(api, () => !!(received = api.view.items().find((i) => i.direction === 'received' && i.title === 'Sampling' && i.state === 'waitingForUser')) && api.prompts.waitingIds.includes(received.id), 'the sampling request to wait');
    assert.equal(received!.task?.statusMessage, "Waiting for the user's consent to sample");
    await ui.assert({ name: 'reply-consent', actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputRow: 'Write the reply myself', quickInputFocused: true } });
    // "Show the full request": a read-only virtual document, rendered; never a dirty Untitled buffer.
    await ui.assert({ name: 'reply-show-request', actions: [{ type: 'Show the full request' }, { waitFor: { quickInputActiveRow: 'Show the full request' } }, { press: 'Enter' }], expect: { quickInputRow: 'Write the reply myself' } });
    // (Documents of earlier tests' requests may still be loaded: look for this request's.)
    const isThisRequest = (d: vscode.TextDocument) => d.uri.scheme === 'mcp-tasks-request' && /Write me two lines/.test(d.getText());
    await until(api, () => vscode.workspace.textDocuments.some(isThisRequest), 'the request document to open');
    const requestDoc = vscode.workspace.textDocuments.find(isThisRequest)!;
    assert.equal(requestDoc.isUntitled, false);
    assert.equal(requestDoc.isDirty, false);
    assert.match(requestDoc.getText(), /Write me two lines/);
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.isUntitled), 'no Untitled buffer');
    await ui.assert({ name: 'reply-choose', actions: [{ type: 'Write the reply' }, { waitFor: { quickInputActiveRow: 'Write the reply' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => api.replies.shownUris.length === 1 && vscode.window.activeTextEditor?.document.uri.scheme === 'mcp-tasks-reply', 'the reply editor to open with the focus');
    const editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.languageId, 'markdown');
    assert.match(editor.document.uri.path, /Reply to demo/);
    // The request beside, rendered (a Markdown preview of its read-only document), not its source.
    await until(
      api,
      () => tabs().some((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === 'vscode.markdown.preview.editor' && t.input.uri.scheme === 'mcp-tasks-request' && t.label.includes('Request - demo')),
      'the request to show rendered beside the reply',
    ).catch((e: Error) => {
      throw new Error(`${e.message}; tabs: ${JSON.stringify(tabs().map((t) => [t.label, t.input?.constructor?.name]))}`);
    });
    assert.ok(!tabs().some((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'mcp-tasks-request' && t.label.includes('Request - demo')), 'not as Markdown source');
    assert.equal(api.prompts.waitingIds.length, 0);
    await until(api, () => api.view.item(received!.id)?.task?.statusMessage === 'Waiting for the user to write the reply', 'the server-facing status to say the reply is being written');
    // Multi-line Markdown, typed as a user does.
    await ui.assert({ name: 'reply-type', actions: [{ waitFor: { editorFocused: 'Reply to' } }, { type: 'Forty-two.' }, { press: 'Enter' }, { type: 'Second line.' }], expect: { quickInputVisible: false } });
    await until(api, () => editor.document.getText() === 'Forty-two.\nSecond line.', 'the reply to be typed').catch(async (e: Error) => {
      await ui.screenshot('reply-type-failed');
      throw new Error(`${e.message}: ${JSON.stringify(editor.document.getText())}; active: ${vscode.window.activeTextEditor?.document.uri.toString()}`);
    });
    await ui.screenshot('reply-editor');
    // Closing the editor sends nothing: the request waits again, and the draft is kept.
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await until(api, () => api.prompts.waitingIds.includes(received!.id), 'the closed reply to wait again');
    assert.equal(sent()?.outcome, undefined, 'nothing was sent');
    assert.ok(!tabs().some((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'mcp-tasks-reply'));
    // Respond reopens the editor with the draft; Send Reply (the editor's title button / palette) sends it.
    await vscode.commands.executeCommand('mcpTasks.respond');
    // Its opening over (the editor takes the focus once more as the request shows beside it): the palette opened next stays open.
    await until(api, () => api.replies.shownUris.length === 1 && vscode.window.activeTextEditor?.document.uri.scheme === 'mcp-tasks-reply', 'the reply editor to reopen');
    assert.equal(vscode.window.activeTextEditor!.document.getText(), 'Forty-two.\nSecond line.');
    await ui.assert({ name: 'reply-send', actions: [{ runCommand: 'MCP Tasks: Send Reply' }], expect: { quickInputVisible: false } });
    await until(api, () => sent()?.state === 'completed' && !!sent()?.outcome, 'ask_model to complete with the reply').catch(async (e: Error) => {
      await ui.screenshot('reply-send-failed');
      const r = api.view.item(received!.id);
      throw new Error(
        `${e.message}: sent ${sent()?.state} ${JSON.stringify(sent()?.task?.statusMessage)}; received ${r?.state} ${JSON.stringify(r?.task?.statusMessage)}; replies open ${JSON.stringify(api.replies.openUris.map(String))}; waiting ${JSON.stringify(api.prompts.waitingIds)}; active ${vscode.window.activeTextEditor?.document.uri.toString()}`,
      );
    });
    assert.ok(JSON.stringify(sent()!.outcome).includes('Forty-two.\\nSecond line.'), JSON.stringify(sent()!.outcome));
    await until(api, () => !tabs().some((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'mcp-tasks-reply'), 'the reply editor to close once sent');
  });

  test('a tool with no arguments gets the review step (Run / Cancel) before it runs', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    const before = new Set(api.view.items().map((i) => i.id));
    const run = vscode.commands.executeCommand('mcpTasks.runTool', 'demo');
    await ui.assert({ name: 'noargs-tools', expect: { quickInputTitle: 'Run Tool on "demo"', quickInputRow: 'plain_time', quickInputFocused: true } });
    await ui.assert({
      name: 'noargs-review',
      actions: [{ type: 'plain_time' }, { waitFor: { quickInputActiveRow: 'Current time' } }, { press: 'Enter' }],
      expect: { quickInputTitle: 'Run "plain_time" on "demo" (1/1)', quickInputActiveRow: 'Run', quickInputRow: 'Cancel' },
      screenshot: true,
    });
    const ran = () => api.view.items().find((i) => i.direction === 'sent' && i.title === 'plain_time' && !before.has(i.id));
    assert.equal(ran(), undefined, 'nothing ran before Run');
    await ui.assert({ name: 'noargs-run', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await run;
    await until(api, () => ran()?.state === 'completed', 'plain_time to run');
  });

  test('Run Tool… shows its picker at once, busy, while the server lists its tools', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    let release: (tools: Tool[]) => void = () => undefined;
    const listing = new Promise<{ tools: Tool[] }>((resolve) => (release = (tools) => resolve({ tools })));
    const slow = { id: 'slow', name: 'slow', state: { kind: 'running' }, serverCapabilities: {}, client: { listTools: () => listing } } as unknown as McpConnection;
    const registry = { get: () => slow, connections: [slow] } as unknown as ConstructorParameters<typeof ToolRunner>[0];
    const runner = new ToolRunner(registry, {} as ConstructorParameters<typeof ToolRunner>[1], () => true, () => undefined);
    const done = runner.run('slow');
    await ui.assert({ name: 'runtool-busy', expect: { quickInputTitle: 'Run Tool on "slow"', quickInputPlaceholder: 'Listing tools' }, screenshot: true });
    release([{ name: 'late_tool', inputSchema: { type: 'object' } } as Tool]);
    await ui.assert({ name: 'runtool-listed', expect: { quickInputRow: 'late_tool', quickInputPlaceholder: 'Pick a tool' } });
    await ui.assert({ name: 'runtool-escape', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
    await done;
  });
});

