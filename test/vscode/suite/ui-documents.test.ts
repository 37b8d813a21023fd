// A task's document opens at once, as a user sees it: its header is on screen within the bridge's
// default wait, and a result too large to render (5 MB) opens as a plain-text view of its first
// part with an "Open the full result" action — never a blank tab. Each test prints how long the
// user waited (`[measure]` lines: from the command to the text on screen).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import { uiBridge, uiBridgeOrSkip } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;
let demo: McpConnection;

function tabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs);
}

/** Calls quick_echo as a task with `text` and waits until its result is in. */
async function echoed(text: string): Promise<string> {
  const key = await api.tracker.callTool(demo, { name: 'quick_echo', execution: { taskSupport: 'optional' } }, { text, delayMs: 0 });
  await until(api, () => api.view.item(`sent:${key}`)?.state === 'completed' && !!api.view.item(`sent:${key}`)?.outcome, 'quick_echo to complete', 60_000);
  return `sent:${key}`;
}

/**
 * When the document was asked of the extension (VS Code opened it) and when its tab opened, in ms
 * after `started`: where the wait before the text shows goes.
 */
function timeline(started: number, scheme: string): { text(): string; dispose(): void } {
  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} +${Date.now() - started} ms`);
  const subs = [
    vscode.workspace.onDidOpenTextDocument((d) => d.uri.scheme.startsWith(scheme) && mark(`document ${d.uri.path.split('/').pop()} served`)),
    vscode.window.tabGroups.onDidChangeTabs((e) => e.opened.forEach((t) => mark(`tab '${t.label}' opened`))),
  ];
  return { text: () => marks.join(', '), dispose: () => subs.forEach((s) => s.dispose()) };
}

suite('Task documents open at once', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    api = await apiWithServersRunning('demo');
    demo = api.registry.get('demo')!;
  });
  cleanUpAfterEachTest(() => api);
  teardown(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  suiteTeardown(async () => {
    if (uiBridge()) await vscode.commands.executeCommand('notifications.clearAll');
  });

  test('a result opens rendered with its header on screen within the default wait', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const id = await echoed('small result 7c1e');
    const taskId = api.view.item(id)!.taskId;
    const started = Date.now();
    const marks = timeline(started, 'mcp-task');
    void vscode.commands.executeCommand('mcpTasks.retrieveResult', { kind: 'task', id }).then(() => marks.text() && console.log(`[measure] small result: the command returned +${Date.now() - started} ms`));
    // The header (the task's fields: its id) and the body, in the rendered preview.
    const header = await ui.assert({ name: 'doc-small-header', expect: { documentText: taskId } });
    console.log(`[measure] small result: header on screen ${Date.now() - started} ms after the command (bridge wait ${header.ms} ms)`);
    await ui.assert({ name: 'doc-small-body', expect: { documentText: 'small result 7c1e' }, screenshot: true });
    console.log(`[measure] small result: body on screen ${Date.now() - started} ms after the command (${marks.text()})`);
    marks.dispose();
    const tab = tabs().find((t) => t.label.includes('Quick echo result') || t.label.includes('quick_echo result'));
    assert.ok(tab?.input instanceof vscode.TabInputWebview, `a rendered preview: ${JSON.stringify(tabs().map((t) => t.label))}`);
  });

  test('a 5 MB result opens as plain text of its first part with "Open the full result"; that opens all of it', async function () {
    this.timeout(240_000);
    const ui = uiBridgeOrSkip(this);
    // A JSON text (the worst case: it used to be pretty-printed and rendered as one 5 MB code block).
    const rows = Array.from({ length: 60_000 }, (_, i) => ({ row: i, label: `row ${i} of the big result`, tags: ['alpha', 'beta', 'gamma'] }));
    rows[0]!.label = 'first row 5b2d';
    rows[rows.length - 1]!.label = 'last row 9e4a';
    const text = JSON.stringify(rows);
    assert.ok(text.length > 4_500_000, `about 5 MB: ${text.length}`);
    const id = await echoed(text);
    const taskId = api.view.item(id)!.taskId;
    const started = Date.now();
    const marks = timeline(started, 'mcp-task');
    void vscode.commands.executeCommand('mcpTasks.retrieveResult', { kind: 'task', id }).then(() => console.log(`[measure] 5 MB result: the command returned +${Date.now() - started} ms`));
    const head = await ui.assert({ name: 'doc-big-head', expect: { documentText: taskId, codeLens: 'Open the full result' } });
    console.log(`[measure] 5 MB result: header and first part on screen ${Date.now() - started} ms after the command (bridge wait ${head.ms} ms; ${marks.text()})`);
    marks.dispose();
    await ui.assert({ name: 'doc-big-first-part', expect: { documentText: 'first row 5b2d' }, screenshot: true });
    const shown = vscode.window.activeTextEditor?.document;
    assert.ok(shown && shown.languageId === 'plaintext', `a plain-text view: ${shown?.uri.toString()} (${shown?.languageId})`);
    assert.ok(shown.getText().length < 1_200_000, `only its first part: ${shown.getText().length} characters`);
    assert.ok(!shown.getText().includes('last row 9e4a'), 'not the end of it');
    // The action (a CodeLens the extension put on its own document) opens the whole result.
    const full = Date.now();
    await ui.assert({ name: 'doc-big-open-full', actions: [{ click: '.part.editor .codelens-decoration a:has-text("Open the full result")' }] });
    await until(api, () => vscode.workspace.textDocuments.some((d) => d.getText().includes('last row 9e4a')), 'the full result to open', 60_000);
    const whole = vscode.workspace.textDocuments.find((d) => d.getText().includes('last row 9e4a'))!;
    assert.ok(whole.getText().includes('first row 5b2d'));
    await ui.assert({ name: 'doc-big-full', expect: { documentText: 'first row 5b2d' }, screenshot: true });
    console.log(`[measure] 5 MB result: the full result on screen ${Date.now() - full} ms after the click`);
  });
});
