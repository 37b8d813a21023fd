// A sent task whose server definition is removed from the configuration is
// shown as orphaned (not "paused" forever), Cancel on it explains instead of throwing, and its row
// offers "Dismiss Orphaned Task" inline, which forgets it at once (a Dismiss by id from elsewhere asks first).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Commands } from '../../../src/ui/commands/commandIds';
import { uiBridgeOrSkip } from '../bridge';
import { extensionApi, until } from '../util';

suite('orphaned sent tasks', () => {
  test('a task of a server removed from the settings is orphaned; Cancel explains; the inline Dismiss forgets it', async function () {
    this.timeout(150_000);
    const { api, extension } = await extensionApi();
    const cfg = () => vscode.workspace.getConfiguration('mcpTasks');
    const before = cfg().inspect<Record<string, unknown>>('servers')?.globalValue ?? {};
    const demoJs = path.join(extension.extensionPath, 'dist', 'demo-server.js');
    const orphan = () => api.view.items().find((i) => i.direction === 'sent' && i.state === 'orphaned');
    await cfg().update('servers', { ...before, 'orphan-me': { type: 'stdio', command: 'node', args: [demoJs] } }, vscode.ConfigurationTarget.Global);
    try {
      await until(api, () => api.registry.get('orphan-me')?.state.kind === 'running', 'orphan-me to run', 60_000);
      const c = api.registry.get('orphan-me')!;
      const key = await api.tracker.callTool(c, { name: 'long_build', execution: { taskSupport: 'required' } }, { steps: 200, stepMs: 500 });
      assert.equal(api.tracker.get(key)?.phase, 'tracking');

      await cfg().update('servers', before, vscode.ConfigurationTarget.Global);
      await until(api, () => !!orphan(), 'the task to be orphaned', 30_000);
      const item = orphan()!;
      assert.equal(item.title, 'long_build');
      assert.equal(item.serverName, 'orphan-me');
      assert.equal(api.registry.get(item.serverId), undefined, 'shown under a server that is not configured');
      assert.match(item.detail ?? '', /no longer configured/);
      assert.equal(api.statusBarText(), '', 'not counted as active');

      // Cancel: explained, never a TypeError.
      const snap = await api.tracker.cancel(item.id.slice('sent:'.length));
      assert.match(snap.reason ?? '', /no longer configured.*Dismiss/);
      // The command with a task named from outside the Tasks view (a row-like object, as another
      // extension or a link would pass) asks first in a modal dialog; the smoke-test driver dismisses
      // dialogs unanswered, so nothing changes — and nothing throws.
      await vscode.commands.executeCommand(Commands.cancelTask, { kind: 'task', id: item.id });
      await vscode.commands.executeCommand(Commands.dismissTask, item.id);
      assert.equal(orphan()?.id, item.id, 'still listed: Dismiss by an id from elsewhere waits for the user');

      const ui = uiBridgeOrSkip(this);
      await ui.assert({
        name: 'orphaned-row',
        actions: [{ openView: true }],
        expect: { treeRows: ['orphan-me: no longer configured', 'long_build', 'orphaned (server removed)'] },
        screenshot: true,
      });
      await ui.assert({
        name: 'orphaned-dismissed',
        actions: [{ clickTreeRowAction: { row: 'orphaned (server removed)', action: 'Dismiss Orphaned Task' } }],
        expect: {},
        screenshot: true,
      });
      await until(api, () => !orphan(), 'the orphaned task to be dismissed', 15_000);
      assert.equal(api.tracker.get(item.id.slice('sent:'.length)), undefined);
    } finally {
      await cfg().update('servers', before, vscode.ConfigurationTarget.Global);
      const left = orphan();
      if (left) api.tracker.remove(left.id.slice('sent:'.length));
    }
  });
});
