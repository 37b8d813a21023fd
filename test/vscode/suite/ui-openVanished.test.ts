// A notification's button that opens a file must not fail silently when the file is gone: the
// "not valid JSON" notification of a half-typed .vscode/mcp.json stays in the notification
// center, the file is deleted, then "Open File" is clicked. Without a readable message the
// click did nothing visible (an unhandled rejection in the extension host's log).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import { uiBridgeOrSkip } from '../bridge';
import { workspaceMcpJson } from '../mcpJson';
import { apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';

let api: McpTasksApi;

const notificationButton = (text: string, button: string) => `.notifications-center .monaco-list-row:has-text(${JSON.stringify(text)}) .monaco-button:has-text(${JSON.stringify(button)})`;

suite('a notification button for a file that is gone', () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    api = await apiWithServersRunning('demo');
  });
  cleanUpAfterEachTest(() => api);

  test('Open File on the parse-error notification of a deleted mcp.json says the file no longer exists', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const mcpJson = await workspaceMcpJson(api);
    const { file } = mcpJson;
    try {
      await mcpJson.write(mcpJson.withEntry('extra', '{\n      "comm'));
      await until(api, () => api.config.problems.some((p) => p.file === file && p.unparsable), 'the parse error', 30_000);
      await ui.assert({ name: 'vanished-parse-error', actions: [{ openView: true }], expect: { notification: 'not valid JSON' } });
      await vscode.workspace.fs.delete(vscode.Uri.file(file));
      await api.config.reload();
      await ui.assert({
        name: 'vanished-open-file',
        actions: [{ click: notificationButton('not valid JSON', 'Open File') }],
        expect: { notification: 'no longer exists' },
        screenshot: true,
      });
      const said = (await ui.state()).notifications.find((n) => n.includes('no longer exists')) ?? '';
      assert.match(said, /mcp\.json no longer exists/);
      assert.notEqual(vscode.window.activeTextEditor?.document.uri.fsPath, file, 'no editor for the deleted file');
    } finally {
      await mcpJson.restore();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
    await until(api, () => api.registry.get('demo')?.state.kind === 'running', 'demo running again', 60_000);
  });
});
