// Rows told apart and Run Again…: several calls of one tool show the arguments that tell them apart
// before the tool's name (a narrow sidebar cuts a row from its end); "Run Again…" from the palette
// and from a row's inline action opens Run Tool… at its review with that call's arguments, whose
// words are the user's own call's (Arguments, "do not run the tool"), and one Enter runs it.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import { uiBridgeOrSkip } from '../bridge';
import { openWithRespond } from '../respond';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
});

suite('rows of one tool told apart, and Run Again…', () => {
  cleanUpAfterEachTest(() => api);

  test('rows37: calls of one tool read their distinguishing argument first; Run Again… fills in the call', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const demo = api.registry.get('demo')!;
    const tool = { name: 'quick_echo', execution: { taskSupport: 'optional' as const } };
    const before = new Set(api.view.items().map((i) => i.id));
    for (let n = 1; n <= 4; n++) await api.tracker.callTool(demo, tool, { text: `row ${n}`, delayMs: 20 });
    const calls = () => api.view.items().filter((i) => i.direction === 'sent' && i.title === 'quick_echo' && !before.has(i.id));
    await until(api, () => calls().length === 4 && calls().every((i) => i.state === 'completed'), 'four quick_echo calls to complete');
    // What differs (text) before the tool name: the start of the row, which a narrow sidebar never cuts.
    const tree = await ui.assert({ name: 'rows37-told-apart', actions: [{ openView: true }], expect: { treeRows: ['text: row 1', 'text: row 4'] }, screenshot: true });
    for (let n = 1; n <= 4; n++) {
      const row = tree.state.treeRows.find((r) => r.includes(`text: row ${n}`));
      assert.match(row ?? '', new RegExp(`^text: row ${n}\\b.* · quick_echo`), `the argument first, then the tool: ${JSON.stringify(tree.state.treeRows)}`);
    }

    // From the palette: pick the call, the form opens at its review with its arguments.
    await ui.assert({ name: 'rows37-again-pick', actions: [{ runCommand: 'MCP Tasks: Run Again…' }], expect: { quickInputRow: 'quick_echo', quickInputFocused: true } });
    // Picked by its task id (each row's detail ends with it): the pick matches each word of the filter anywhere
    // in a row, so "row 3" also kept another call whose random task id has a 3 in it, first in the list.
    const third = calls().find((i) => i.argsSummary === JSON.stringify({ text: 'row 3', delayMs: 20 }))!;
    const review = await ui.assert({
      name: 'rows37-again-review',
      // The filter applied (the active row is the one typed for, not the newest call's) before Enter.
      actions: [{ type: third.taskId }, { waitFor: { quickInputActiveRow: 'text: row 3' } }, { press: 'Enter' }],
      expect: { quickInputTitle: 'Run "quick_echo" on "demo" (3/3)', quickInputActiveRow: 'Run', quickInputFocused: true },
      screenshot: true,
    });
    const rows = review.state.quickInput.rows.join(' | ');
    assert.ok(rows.includes('row 3'), `the call's text is filled in: ${rows}`);
    assert.match(rows, /do not run the tool/, 'Cancel of the user\'s own call says what it does');
    assert.doesNotMatch(rows, /dismiss without answering/);
    await ui.assert({ name: 'rows37-again-run', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => calls().length === 5 && calls().every((i) => i.state === 'completed'), 'the call run again to complete');
    assert.equal(calls().filter((i) => i.argsSummary === JSON.stringify({ text: 'row 3', delayMs: 20 })).length, 2, 'run again with the same arguments');

    // From a row's inline action.
    await ui.assert({
      name: 'rows37-again-inline',
      actions: [{ openView: true }, { clickTreeRowAction: { row: 'text: row 2', action: 'Run Again…' } }],
      expect: { quickInputTitle: '(3/3)', quickInputActiveRow: 'Run', quickInputFocused: true },
    });
    await ui.assert({ name: 'rows37-again-inline-run', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => calls().filter((i) => i.argsSummary === JSON.stringify({ text: 'row 2', delayMs: 20 }) && i.state === 'completed').length === 2, 'the row run again to complete');
  });
});

suite('rows37: a plain call cancelled by the user, and its document', () => {
  cleanUpAfterEachTest(() => api);

  test('rows37: its row ends "cancelled by the user" (no "Error:"), its document shows no local id as a taskId', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const demo = api.registry.get('demo')!;
    const before = new Set(api.view.items().map((i) => i.id));
    void api.tracker.callTool(demo, { name: 'quick_echo' }, { text: 'to be cancelled', delayMs: 60_000 }, { mode: 'plain' }).catch(() => undefined);
    const item = () => api.view.items().find((i) => i.direction === 'sent' && i.title === 'quick_echo' && !before.has(i.id));
    await until(api, () => item()?.state === 'running', 'the plain call to run');
    // Cancelled from the palette: the row's inline action is clicked elsewhere (ui-tasks, ui-orphaned), and on a
    // running row, redrawn every second for its clock, a mouse click can land between two drawings.
    await ui.assert({ name: 'rows37-plain-cancel-pick', actions: [{ openView: true }, { runCommand: 'MCP Tasks: Cancel Task…' }], expect: { quickInputRow: 'to be cancelled', quickInputFocused: true } });
    await ui.assert({
      name: 'rows37-plain-cancel',
      actions: [{ type: 'to be cancelled' }, { waitFor: { quickInputActiveRow: 'to be cancelled' } }, { press: 'Enter' }],
      expect: { treeRows: ['cancelled by the user'] },
      screenshot: true,
    });
    const rows = (await ui.state()).treeRows.filter((r) => r.includes('to be cancelled'));
    assert.ok(rows.length === 1 && !rows[0]!.includes('Error:'), `no "Error:" prefix: ${JSON.stringify(rows)}`);
    const doc = await vscode.workspace.openTextDocument(api.taskDocumentUri(item()!));
    assert.doesNotMatch(doc.getText(), /\| taskId \|/, 'a plain call has no server task id');
    assert.match(doc.getText(), /\| local id \| call-/);
  });
});

suite('rows37: words shown as written', () => {
  cleanUpAfterEachTest(() => api);

  test('rows37: the cancel-scope picker quotes a request\'s words without backslashes', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const demo = api.registry.get('demo')!;
    const before = new Set(api.view.items().map((i) => i.id));
    await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message: 'Type "cancel palette"' });
    const call = () => api.view.items().find((i) => i.direction === 'sent' && i.title === 'collect_profile' && !before.has(i.id));
    await until(api, () => !!call() && api.view.childrenOf(call()!.id).some((c) => c.state === 'waitingForUser'), 'the profile form nested under its call, waiting');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await until(api, () => api.prompts.activeId === undefined, 'the form to wait');
    await ui.assert({ name: 'rows37-cancel-pick', actions: [{ runCommand: 'MCP Tasks: Cancel Task…' }], expect: { quickInputRow: 'collect_profile', quickInputFocused: true } });
    const scope = await ui.assert({
      name: 'rows37-cancel-scope',
      actions: [{ type: 'collect_profile' }, { waitFor: { quickInputActiveRow: 'collect_profile' } }, { press: 'Enter' }],
      // Focused before Escape is pressed (a key pressed while the step is still taking the focus goes elsewhere).
      expect: { quickInputRow: 'Cancel only the request', quickInputPlaceholder: 'Type "cancel palette"', quickInputFocused: true },
      screenshot: true,
    });
    const shown = `${scope.state.quickInput.placeholder ?? ''} | ${scope.state.quickInput.rows.join(' | ')}`;
    assert.doesNotMatch(shown, /\\"/, `no backslash before a quote: ${shown}`);
    // Escape closes it (the notification center an earlier suite left open took this Escape: util.ts hideNotificationCenter).
    await ui.assert({ name: 'rows37-cancel-scope-escape', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
  });

  test('rows37: the reply editor\'s path (its breadcrumb) is readable, not percent-encoded', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const demo = api.registry.get('demo')!;
    await api.tracker.callTool(demo, { name: 'ask_model', execution: { taskSupport: 'optional' } }, { prompt: 'What is six times seven?' });
    await until(api, () => api.view.items().some((i) => i.direction === 'received' && i.title === 'Sampling' && i.state === 'waitingForUser'), 'the sampling task to wait for the user');
    await openWithRespond(ui, 'rows37-consent', { row: 'Sampling', expect: { quickInputRow: 'Write the reply myself', quickInputFocused: true } });
    await ui.assert({ name: 'rows37-write-reply', actions: [{ type: 'Write the reply' }, { waitFor: { quickInputActiveRow: 'Write the reply' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => api.replies.shownUris.length === 1, 'the reply editor to open');
    const folder = api.replies.shownUris[0]!.path.split('/')[1]!;
    assert.doesNotMatch(folder, /%/, `readable: ${folder}`);
    assert.match(folder, /^[\w.-]+$/, folder);
  });
});

const SERVER_2026 = 'demo-2026-07-28';

suite('rows37: a call waiting for the user', () => {
  let api2026: McpTasksApi;
  suiteSetup(async function () {
    this.timeout(90_000);
    api2026 = await apiWithServersRunning(SERVER_2026);
  });
  cleanUpAfterEachTest(() => api2026);

  test('rows37: a 2026 call whose form waits reads "waiting for you" on its own row, not "sending: asks for input"', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const before = new Set(api2026.view.items().map((i) => i.id));
    void api2026.tracker.callTool(api2026.registry.get(SERVER_2026)!, { name: 'write_haiku' }, {}).catch(() => undefined);
    const item = () => api2026.view.items().find((i) => i.direction === 'sent' && i.serverId === SERVER_2026 && i.title === 'write_haiku' && !before.has(i.id));
    await until(api2026, () => !!item() && (api2026.prompts.waitingIds.length > 0 || api2026.prompts.activeId !== undefined), 'the haiku form to wait for the user', 60_000);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    const tree = await ui.assert({ name: 'rows37-waiting-for-you', actions: [{ openView: true }], expect: { treeRows: ['write_haiku'] }, screenshot: true });
    const row = tree.state.treeRows.find((r) => r.startsWith('write_haiku')) ?? '';
    assert.match(row, /waiting for you/, `the call's own row: ${JSON.stringify(tree.state.treeRows)}`);
    assert.doesNotMatch(row, /asks for input|sending/);
  });
});
