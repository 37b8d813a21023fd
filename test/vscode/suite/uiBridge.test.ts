// Self-test of the offline runner's UI bridge (scripts/lib/uiBridge.mjs): each probe is made by
// the test itself (a status bar item, a notification, the command palette), so these tests do
// not depend on what the extension shows. Skipped when there is no bridge (test-electron).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { uiBridgeOrSkip } from '../bridge';

suite('UI bridge', () => {
  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('reads a status bar item', async function () {
    const ui = uiBridgeOrSkip(this);
    const item = vscode.window.createStatusBarItem('e2e.probe', vscode.StatusBarAlignment.Left, 1000);
    item.text = '$(beaker) e2e-probe-17';
    item.show();
    try {
      const r = await ui.assert({ name: 'bridge-status-bar', expect: { statusBarText: 'e2e-probe-17' } });
      const probe = r.state.statusBar.items.find((i) => i.text.includes('e2e-probe-17'));
      assert.ok(probe, 'probe item not in state');
      assert.deepEqual(probe.icons, ['beaker']);
      // The DOM id is `<publisher.name>.<id>` (the test runs as part of the extension under test).
      assert.match(probe.id, /\be2e\.probe$/);
    } finally {
      item.dispose();
    }
    await ui.assert({ name: 'bridge-status-bar-gone', expect: {} });
  });

  test('reads notifications from the notification center', async function () {
    const ui = uiBridgeOrSkip(this);
    void vscode.window.showInformationMessage('e2e probe notification 42');
    const r = await ui.assert({ name: 'bridge-notifications', expect: { notification: 'e2e probe notification 42' } });
    assert.equal(r.state.notificationCenterVisible, true);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  test('reads a withdrawn notification as gone while the center hides itself with it', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    await vscode.commands.executeCommand('notifications.clearAll');
    // To read an absence the bridge closes the center and opens it again; the center also closes
    // itself when its last notification goes, a moment after the extension withdrew it. Each round
    // withdraws the only notification as the bridge starts reading (0–75 ms after the request
    // goes out), so some round lands in between the two.
    for (let round = 0; round < 12; round++) {
      const text = `e2e withdrawn probe ${round}`;
      let withdraw = () => {};
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text }, () => new Promise<void>((resolve) => (withdraw = resolve)));
      await ui.assert({ name: 'bridge-withdrawn-shown', actions: [{ showNotifications: true }], expect: { notification: text } });
      const gone = ui.check({ name: 'bridge-withdrawn-gone', expect: { noNotification: text } });
      setTimeout(withdraw, (round % 6) * 15);
      const r = await gone;
      assert.ok(r.ok, `round ${round}: ${r.failures.join('; ')}`);
    }
  });

  test('while the notification center is open, Escape closes the center, not the quick pick on screen (why the clean-up closes it)', async function () {
    const ui = uiBridgeOrSkip(this);
    void vscode.window.showInformationMessage('e2e probe center left open');
    // A check that reads a notification opens the center, and leaves it open.
    await ui.assert({ name: 'bridge-center-open', expect: { notification: 'e2e probe center left open' } });
    const qp = vscode.window.createQuickPick();
    qp.items = [{ label: 'e2e probe pick 31' }];
    qp.ignoreFocusOut = true;
    qp.show();
    try {
      await ui.assert({ name: 'bridge-center-pick', expect: { quickInputRow: 'e2e probe pick 31', quickInputFocused: true } });
      // VS Code binds Escape to notifications.hideList (while the center is shown) above quickInput.hide.
      const first = await ui.assert({ name: 'bridge-center-escape', actions: [{ press: 'Escape' }], expect: { quickInputVisible: true, quickInputFocused: true } });
      let state = first.state;
      for (const deadline = Date.now() + 5000; state.notificationCenterVisible && Date.now() < deadline; ) state = await ui.state();
      assert.equal(state.notificationCenterVisible, false, 'the first Escape closed the center');
      assert.equal(state.quickInput.visible, true, 'and left the pick open');
      await ui.assert({ name: 'bridge-center-escape-again', actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
    } finally {
      qp.dispose();
      await vscode.commands.executeCommand('notifications.clearAll');
    }
  });

  test('drives the command palette and the quick input', async function () {
    const ui = uiBridgeOrSkip(this);
    const r = await ui.assert({
      name: 'bridge-quick-input',
      actions: [{ press: 'F1' }, { type: 'Notifications: Show Notif' }],
      expect: { quickInputVisible: true, quickInputRow: 'Notifications: Show Notifications' },
    });
    assert.equal(r.state.quickInput.value, '>Notifications: Show Notif');
    // Reads without `expect` do not wait: ask for the state you wait for.
    await ui.assert({ actions: [{ press: 'Escape' }], expect: { quickInputVisible: false } });
    await ui.runCommand('Notifications: Show Notifications');
    await ui.assert({ name: 'bridge-center-open', expect: { quickInputVisible: false } });
    assert.equal((await ui.state()).notificationCenterVisible, true);
  });

  test('reads and expands tree rows in the side bar', async function () {
    const ui = uiBridgeOrSkip(this);
    await vscode.commands.executeCommand('workbench.view.explorer');
    await vscode.commands.executeCommand('workbench.files.action.collapseExplorerFolders');
    const r = await ui.assert({
      name: 'bridge-tree-rows',
      actions: [{ clickTreeRow: '.vscode' }],
      expect: { treeRows: ['.vscode', 'mcp.json'] },
    });
    assert.ok(r.state.treeRows.length >= 2);
  });

  test('reports failures instead of throwing', async function () {
    const ui = uiBridgeOrSkip(this);
    const r = await ui.check({ name: 'expected-failure', expect: { statusBarText: 'no such text 9f8e' }, timeoutMs: 300 });
    assert.equal(r.ok, false);
    assert.match(r.failures[0], /statusBarText/);
  });
});
