// Messages with the right buttons and commands that say what they did, as a user meets them: a
// request's notification offers Respond beside Cancel; Escape on Sign Out's picker says nothing;
// Start Server names the server it chose; Cancel Task… lists a call's question under the call, as
// the tree does; one palette command per action; Refresh says it refreshed; Clear Finished asks
// first; a key outside "servers" in mcp.json is reported once, with its line.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import { isFinished } from '../../../src/core/view/taskView';
import { uiBridge, uiBridgeOrSkip } from '../bridge';
import { workspaceMcpJson } from '../mcpJson';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;
let demo: McpConnection;

suite('Messages and commands that say what happened', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    api = await apiWithServersRunning('demo');
    demo = api.registry.get('demo')!;
  });
  cleanUpAfterEachTest(() => api);
  setup(async () => {
    if (uiBridge()) await vscode.commands.executeCommand('notifications.clearAll');
  });
  suiteTeardown(async () => {
    if (uiBridge()) await vscode.commands.executeCommand('notifications.clearAll');
  });

  test('a waiting request\'s notification has Respond beside Cancel: it opens the form', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Profile answered from its notification';
    await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message });
    const received = () => api.view.items().find((i) => i.direction === 'received' && i.title === `Elicitation: ${message}`);
    await until(api, () => !!received() && api.prompts.waitingIds.includes(received()!.id), 'the form to wait');
    const shown = await ui.check({ name: 'respond-link', actions: [{ showNotifications: true }], expect: { notification: message }, screenshot: true });
    assert.ok(shown.ok, shown.failures.join('\n'));
    const target = `command:mcpTasks.respond?${encodeURIComponent(JSON.stringify([received()!.id]))}`;
    assert.ok(shown.state.notificationLinks.includes(target), `a Respond link to this request: ${JSON.stringify(shown.state.notificationLinks)}`);
    // The link in its message (a progress notification's only button is Cancel), clicked as a user does.
    await ui.assert({
      name: 'respond-link-opens',
      actions: [{ click: '.notifications-center .notification-list-item-message a:has-text("Respond")' }],
      expect: { quickInputTitle: `"demo" asks: ${message} (1/`, quickInputFocused: true },
      screenshot: true,
    });
    assert.deepEqual(api.prompts.waitingIds, [], 'it is open, no longer waiting');
    await ui.assert({ name: 'respond-link-close', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
  });

  test('Escape on Sign Out\'s picker says nothing (two HTTP servers are configured)', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    const http = api.registry.connections.filter((c) => c.definition.transport.type === 'http');
    assert.ok(http.length >= 2, `two HTTP servers to pick from: ${http.map((c) => c.name).join(', ')}`);
    const done = vscode.commands.executeCommand('mcpTasks.signOut');
    await ui.assert({ name: 'signout-pick', expect: { quickInputPlaceholder: 'Sign out of which server?', quickInputFocused: true } });
    await ui.assert({ name: 'signout-escape', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
    // The command has returned: whatever it had to say, it has said.
    await done;
    await ui.assert({ name: 'signout-silent', expect: { noNotification: 'no HTTP server is configured' }, screenshot: true });
  });

  test('Start Server with one server stopped starts it and says which', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const target = 'demo-2026';
    // Every other server runs: the one stopped is the only candidate, chosen without a pick.
    for (const c of api.registry.connections) if (c.id !== target && c.state.kind !== 'running') await api.registry.start(c.id).catch(() => undefined);
    await until(api, () => api.registry.connections.every((c) => c.id === target || c.state.kind === 'running'), 'every other server to run', 60_000);
    await api.registry.stop(target);
    await until(api, () => api.registry.get(target)?.state.kind === 'stopped', `${target} to stop`);
    await ui.assert({ name: 'start-only-one', actions: [{ runCommand: 'MCP Tasks: Start Server' }], expect: { notification: `starting "${target}", the only server not running` }, screenshot: true });
    await until(api, () => api.registry.get(target)?.state.kind === 'running', `${target} to run again`, 60_000);
  });

  test('Cancel Task… lists a call\'s question under the call, in Sent, as the tree does', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Question listed under its call';
    const key = await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message });
    const received = () => api.view.items().find((i) => i.direction === 'received' && i.title === `Elicitation: ${message}`);
    await until(api, () => received()?.parentId === `sent:${key}` && api.prompts.waitingIds.includes(received()!.id), 'the question to nest under its call');
    const check = await ui.check({ name: 'cancel-pick', actions: [{ runCommand: 'MCP Tasks: Cancel Task…' }], expect: { quickInputPlaceholder: 'Cancel which task?', quickInputRow: `Elicitation: ${message}`, quickInputFocused: true }, screenshot: true });
    assert.ok(check.ok, check.failures.join('\n'));
    const rows = check.state.quickInput.rows;
    const call = rows.findIndex((r) => r.includes('collect_profile') && !r.includes('Elicitation'));
    const question = rows.findIndex((r) => r.includes(`Elicitation: ${message}`));
    assert.ok(call >= 0 && question > call, `the call first, then its question: ${JSON.stringify(rows)}`);
    assert.match(rows[question]!, /question of "collect_profile"/, 'labelled as the call\'s question');
    assert.doesNotMatch(rows[question]!, /· received ·/, 'not "received": the tree shows it under Sent');
    await ui.assert({ name: 'cancel-pick-close', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
  });

  test('one palette command per action: "Show Tasks" is gone, VS Code\'s "Focus on Tasks View" stays', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    await ui.assert({ name: 'palette-focus', actions: [{ press: 'F1' }, { type: 'Focus on Tasks View' }], expect: { quickInputRow: 'Focus on Tasks View' } });
    await ui.assert({ name: 'palette-show-tasks', actions: [{ press: 'Control+A' }, { type: '>MCP Tasks: Show Tasks' }], expect: { quickInputValue: '>MCP Tasks: Show Tasks' } });
    const rows = (await ui.state()).quickInput.rows;
    assert.ok(!rows.some((r) => /MCP Tasks: Show Tasks/.test(r)), JSON.stringify(rows));
    await ui.assert({ name: 'palette-close', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
  });

  test('Refresh says what it did', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    await ui.assert({ name: 'refresh', actions: [{ runCommand: 'MCP Tasks: Refresh' }], expect: { statusBarText: 'refreshed mcp.json' }, screenshot: true });
  });

  test('Clear Finished asks before removing anything', async function () {
    this.timeout(60_000);
    uiBridgeOrSkip(this);
    const key = await api.tracker.callTool(demo, { name: 'quick_echo', execution: { taskSupport: 'optional' } }, { text: 'kept unless you say so' });
    // Finished with its result fetched (phase done): what Clear Finished removes.
    await until(api, () => api.tracker.get(key)?.phase === 'done' && isFinished(api.view.item(`sent:${key}`)?.state ?? 'working'), 'the call to finish');
    // The test driver dismisses the confirmation dialog unanswered (as Cancel): nothing is removed.
    await vscode.commands.executeCommand('mcpTasks.clearFinished');
    assert.ok(api.view.item(`sent:${key}`), 'a finished row is not removed without a yes');
  });

  test('a key outside "servers" in mcp.json is reported once, with its line', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    const mcpJson = await workspaceMcpJson(api);
    try {
      const text = mcpJson.original.replace(/\n}\s*$/, ',\n  "stray-server": { "command": "node" }\n}\n');
      assert.notEqual(text, mcpJson.original);
      const line = text.split('\n').findIndex((l) => l.includes('"stray-server"')) + 1;
      await mcpJson.write(text);
      await ui.assert({ name: 'misplaced-key', expect: { notification: `"stray-server": is outside "servers" (line ${line}) and is ignored` }, screenshot: true });
      // Read again (an edit elsewhere in the file): not said again.
      await vscode.commands.executeCommand('notifications.clearAll');
      await mcpJson.write(`// edited\n${text}`);
      await ui.assert({ name: 'misplaced-key-once', expect: { noNotification: '"stray-server"' } });
    } finally {
      await mcpJson.restore();
    }
  });
});
