// Server errors in a real VS Code: a server that fails to start notifies once
// with its real cause and "Show Log" / "Retry" / "Open …", a status-bar item shows while it is
// in error, it offers no "Run Tool…"; a half-typed .vscode/mcp.json stops nothing and drops no
// task ("Open File" goes to the error), and once it parses only the changed servers restart;
// stopping or restarting a server with tasks in flight asks first (a dismissed dialog = no).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { ConnectionState } from '../../../src/core/connection/connection';
import { Commands } from '../../../src/ui/commands/commandIds';
import { freePort } from '../../helpers/freePort';
import { uiBridgeOrSkip } from '../bridge';
import { workspaceMcpJson } from '../mcpJson';
import { apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';

let api: McpTasksApi;

const notificationButton = (text: string, button: string) => `.notifications-center .monaco-list-row:has-text(${JSON.stringify(text)}) .monaco-button:has-text(${JSON.stringify(button)})`;

suite('server errors speak', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    api = await apiWithServersRunning('demo');
  });
  cleanUpAfterEachTest(() => api);

  test('a server that fails to start: one notification with the real cause and Show Log / Retry / Open Settings, a status-bar item, no Run Tool…', async function () {
    this.timeout(150_000);
    const cfg = () => vscode.workspace.getConfiguration('mcpTasks');
    const before = cfg().inspect<Record<string, unknown>>('servers')?.globalValue ?? {};
    const port = await freePort();
    const NAME = 'broken-http';
    const states: ConnectionState[] = [];
    const sub = api.registry.onDidChangeState(({ connection, state }) => connection.id === NAME && states.push(state));
    await cfg().update('servers', { ...before, [NAME]: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, vscode.ConfigurationTarget.Global);
    try {
      await until(api, () => api.registry.get(NAME)?.state.kind === 'error', `${NAME} to fail`, 60_000);
      const shownFor = () => api.serverErrors.shown.filter((s) => s.serverId === NAME);
      assert.equal(shownFor().length, 1);
      assert.match(shownFor()[0]!.message, new RegExp(`"${NAME}" failed to start: nothing listens on 127\\.0\\.0\\.1:${port} \\(connection refused, ECONNREFUSED\\)`));
      assert.doesNotMatch(shownFor()[0]!.message, /fetch failed/);
      assert.match(api.serverErrors.text, new RegExp(NAME));

      // Retried with the crash backoff; the retry that fails again does not notify again.
      await until(api, () => states.some((s) => s.kind === 'starting' && s.attempt === 2), 'a retry (attempt 2)', 30_000);
      await until(api, () => api.registry.get(NAME)?.state.kind === 'error', 'the retry to fail', 30_000);
      assert.equal(shownFor().length, 1, 'notified once per server');

      // No "Run Tool…" on a server in error: its empty "Sent" row offers nothing to run.
      const ui = uiBridgeOrSkip(this);
      await ui.assert({
        name: 'server-start-failure',
        actions: [{ openView: true }],
        expect: { notification: `nothing listens on 127.0.0.1:${port}`, statusBarText: NAME, treeRows: [NAME] },
        screenshot: true,
      });
      const rows = (await ui.state()).treeRows;
      const at = rows.findIndex((r) => r.startsWith(NAME));
      const serverRows = rows.slice(at, at + 4).join(' | ');
      assert.doesNotMatch(serverRows, /Run Tool/, serverRows);
      assert.match((await ui.state()).notifications.find((n) => n.includes(NAME)) ?? '', /nothing listens/);

      // "Retry" in the notification restarts it now (a new episode: stopped, then starting at attempt 1).
      const count = states.length;
      await ui.assert({ name: 'server-start-failure-retry', actions: [{ click: notificationButton(NAME, 'Retry') }], expect: {} });
      await until(api, () => states.slice(count).some((s) => s.kind === 'stopped'), 'Retry to restart the server', 30_000);
      await until(api, () => states.slice(count).some((s) => s.kind === 'starting' && s.attempt === 1), 'Retry to start the server', 30_000);
    } finally {
      sub.dispose();
      await cfg().update('servers', before, vscode.ConfigurationTarget.Global);
      await api.config.reload();
    }
    assert.equal(api.registry.get(NAME), undefined);
    assert.equal(api.serverErrors.text, '', 'the status-bar error item is gone with the server');
  });

  test('a half-typed mcp.json stops nothing and drops no task; Open File goes to the error; once it parses, only the changed server starts', async function () {
    this.timeout(180_000);
    const mcpJson = await workspaceMcpJson(api);
    const { file } = mcpJson;
    const demo = api.registry.get('demo')!;
    const key = await api.tracker.callTool(demo, { name: 'long_build', execution: { taskSupport: 'required' } }, { steps: 200, stepMs: 500 });
    assert.equal(api.tracker.get(key)?.phase, 'tracking');
    try {
      // Half-typed: a new entry cut off in the middle of a key.
      await mcpJson.write(mcpJson.withEntry('extra', '{\n      "comm'));
      await until(api, () => api.config.problems.some((p) => p.file === file && p.unparsable), 'the parse error', 30_000);
      const problem = api.config.problems.find((p) => p.file === file && p.unparsable)!;
      assert.ok(api.config.keptLastGood.has(file));
      assert.equal(api.registry.get('demo'), demo, 'the same connection: not restarted');
      assert.equal(demo.state.kind, 'running');
      assert.equal(api.tracker.get(key)?.phase, 'tracking', 'the task in flight goes on');

      const ui = uiBridgeOrSkip(this);
      await ui.assert({
        name: 'mcp-json-parse-error',
        actions: [{ openView: true }],
        expect: { notification: 'not valid JSON', treeRows: ['demo'] },
        screenshot: true,
      });
      const n = (await ui.state()).notifications.find((t) => t.includes('not valid JSON')) ?? '';
      assert.match(n, /mcp\.json/);
      assert.match(n, /keep running with the last valid configuration/);
      await ui.assert({ name: 'mcp-json-open-file', actions: [{ click: notificationButton('not valid JSON', 'Open File') }], expect: {} });
      await until(api, () => vscode.window.activeTextEditor?.document.uri.fsPath === file, 'mcp.json to open', 30_000);
      const at = vscode.window.activeTextEditor!.selection.active;
      assert.deepEqual({ line: at.line + 1, column: at.character + 1 }, problem.position, 'the cursor is at the error');
      await ui.assert({ name: 'mcp-json-at-error', expect: {}, screenshot: true });

      // Parses again, with one new server: only that one starts; demo and its task are untouched.
      await mcpJson.write(mcpJson.withEntry('extra', '{ "type": "stdio", "command": "node", "args": ["${workspaceFolder}/../../dist/demo-server.js"] }'));
      await until(api, () => api.registry.get('extra')?.state.kind === 'running', 'the new server to start', 60_000);
      assert.equal(api.registry.get('demo'), demo, 'demo was not restarted');
      assert.equal(api.tracker.get(key)?.phase, 'tracking');
      assert.equal(api.config.keptLastGood.size, 0);
    } finally {
      await mcpJson.restore();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
    assert.equal(api.registry.get('extra'), undefined, 'the extra server is gone');
    assert.equal(api.registry.get('demo'), demo);
  });

  test('a workspace server whose program is not on PATH: "not found: is it on PATH?", and Open mcp.json goes to its entry', async function () {
    this.timeout(120_000);
    const mcpJson = await workspaceMcpJson(api);
    const { file } = mcpJson;
    const NAME = 'ghost';
    try {
      await mcpJson.write(mcpJson.withEntry(NAME, '{ "type": "stdio", "command": "definitely-not-a-command-mcp-tasks" }'));
      await until(api, () => api.registry.get(NAME)?.state.kind === 'error', `${NAME} to fail`, 60_000);
      const shown = api.serverErrors.shown.filter((s) => s.serverId === NAME);
      assert.equal(shown.length, 1);
      assert.match(shown[0]!.message, /the program "definitely-not-a-command-mcp-tasks" was not found: is it on PATH\? \(ENOENT\)/);
      const ui = uiBridgeOrSkip(this);
      await ui.assert({ name: 'server-not-on-path', actions: [{ openView: true }], expect: { notification: 'is it on PATH?' }, screenshot: true });
      await ui.assert({ name: 'server-open-mcp-json', actions: [{ click: notificationButton('is it on PATH?', 'Open mcp.json') }], expect: {} });
      await until(api, () => vscode.window.activeTextEditor?.document.uri.fsPath === file, 'mcp.json to open', 30_000);
      const line = vscode.window.activeTextEditor!.selection.active.line;
      assert.match(vscode.window.activeTextEditor!.document.lineAt(line).text, new RegExp(`"${NAME}"`), 'the cursor is on the server entry');
    } finally {
      await mcpJson.restore();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
    assert.equal(api.registry.get(NAME), undefined);
  });

  test('Restart or Stop with a task in flight asks first; dismissing the question leaves server and task alone', async function () {
    this.timeout(90_000);
    const demo = api.registry.get('demo')!;
    const key = await api.tracker.callTool(demo, { name: 'long_build', execution: { taskSupport: 'required' } }, { steps: 200, stepMs: 500 });
    const states: ConnectionState[] = [];
    const sub = demo.onDidChangeState((s) => states.push(s));
    try {
      // The test driver dismisses every modal dialog unseen, as Cancel would.
      await vscode.commands.executeCommand(Commands.restartServer, 'demo');
      await vscode.commands.executeCommand(Commands.stopServer, 'demo');
      assert.deepEqual(states, [], 'not stopped, not restarted');
      assert.equal(api.registry.get('demo'), demo);
      assert.equal(demo.state.kind, 'running');
      assert.equal(api.tracker.get(key)?.phase, 'tracking');
    } finally {
      sub.dispose();
    }
  });
});
