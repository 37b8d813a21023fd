// Extension-host tests: the extension is installed, activates, registers what it contributes,
// and (under the offline runner's UI bridge) shows up in the workbench.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { uiBridgeOrSkip } from '../bridge';

const EXTENSION_ID = 'mcp-tasks.mcp-tasks';

interface Manifest {
  contributes?: {
    commands?: { command: string; title: string }[];
    viewsContainers?: { activitybar?: { id: string; title: string }[] };
    views?: Record<string, { id: string; name: string }[]>;
  };
}

function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed`);
  return ext;
}

/** The manifest as shipped (read from disk, so the test follows package.json as it grows). */
function manifest(): Manifest {
  return JSON.parse(fs.readFileSync(path.join(extension().extensionPath, 'package.json'), 'utf8')) as Manifest;
}

suite('activation', () => {
  test('the extension is present and activates', async () => {
    const ext = extension();
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  test('every contributed command is registered', async () => {
    await extension().activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    const contributed = (manifest().contributes?.commands ?? []).map((c) => c.command);
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  test('the view container and its views are registered', async () => {
    const m = manifest();
    const registered = new Set(await vscode.commands.getCommands(true));
    // VS Code registers `workbench.view.extension.<container>` per view container and
    // `<view>.focus` per view.
    const expected = [
      ...(m.contributes?.viewsContainers?.activitybar ?? []).map((c) => `workbench.view.extension.${c.id}`),
      ...Object.values(m.contributes?.views ?? {}).flatMap((vs) => vs.map((v) => `${v.id}.focus`)),
    ];
    assert.ok(expected.includes('workbench.view.extension.mcpTasks'), 'manifest lost the mcpTasks container');
    const missing = expected.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `view commands missing: ${missing.join(', ')}`);
  });
});

suite('activation (UI)', () => {
  test('the activity bar shows MCP Tasks and clicking it shows the Tasks view', async function () {
    this.timeout(60_000);
    const ui = uiBridgeOrSkip(this);
    await extension().activate();
    await ui.assert({ name: 'activity-bar', expect: { activityBar: true } });
    const r = await ui.assert({
      name: 'tasks-view',
      actions: [{ openView: true }],
      expect: { sidebarTitle: 'MCP Tasks' },
      screenshot: true,
    });
    assert.equal(r.state.activityBar.selected, true, 'MCP Tasks tab is not selected after clicking it');
    assert.ok(
      r.state.sidebar.views.some((v) => /tasks/i.test(v)) || /tasks/i.test(r.state.sidebar.title),
      `the Tasks view is not shown: ${JSON.stringify(r.state.sidebar)}`,
    );
  });
});
