// Helpers shared by the extension-host suites.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../src/extension';
import { isActive, isFinished } from '../../src/core/view/taskView';

export const EXTENSION_ID = 'mcp-tasks.mcp-tasks';

/** The activated extension's API. */
export async function extensionApi(): Promise<{ api: McpTasksApi; extension: vscode.Extension<McpTasksApi> }> {
  const extension = vscode.extensions.getExtension<McpTasksApi>(EXTENSION_ID);
  assert.ok(extension, 'extension not installed');
  const api = await extension.activate();
  await api.ready();
  return { api, extension };
}

/** Resolves when `check()` holds, re-checking on every core or editor event; fails after `ms`. */
export function until(api: McpTasksApi, check: () => boolean, what: string, ms = 30_000, alsoOn: ReadonlyArray<vscode.Event<unknown>> = []): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const subs: Array<{ dispose(): void }> = [];
    const done = (err?: Error) => {
      clearTimeout(timer);
      subs.forEach((s) => s.dispose());
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}`)), ms);
    const recheck = () => {
      if (check()) done();
    };
    subs.push(
      api.view.onDidChange(recheck),
      api.registry.onDidChangeState(recheck),
      api.prompts.onDidChange(recheck),
      api.consents.onDidChange(recheck),
      vscode.window.onDidChangeActiveTextEditor(recheck),
      vscode.window.onDidChangeVisibleTextEditors(recheck),
      vscode.workspace.onDidChangeTextDocument(recheck),
      vscode.workspace.onDidOpenTextDocument(recheck),
      // A tasks/get answer that changes nothing fires no view change: checks of things without an
      // event of their own (a document's text, a server's side) are looked at again on each poll.
      api.tracker.onDidPoll(recheck),
      // Events of what the caller waits on that the ones above do not cover (e.g. the Tasks tree fetched).
      ...alsoOn.map((e) => e(recheck)),
    );
  });
}

/**
 * Leaves nothing behind for the next test (a no-op after a test that passed): answers every
 * prompt on screen or queued with Escape, cancels every active task, and waits until the status
 * bar is idle again. For `teardown` of UI tests, so one failure does not cascade into the rest.
 */
export async function cleanUp(api: McpTasksApi): Promise<void> {
  for (let i = 0; i < 10 && (api.prompts.activeId !== undefined || api.prompts.queuedIds.length > 0); i++) {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await until(api, () => api.prompts.activeId === undefined, 'the prompt to close', 5_000).catch(() => undefined);
  }
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  // A closed form waits again (it is not an answer): answer what still waits with its cancel answer.
  for (const id of api.prompts.waitingIds) api.prompts.cancelWaiting(id);
  for (const uri of api.replies.openUris) {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
    await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
  }
  for (const id of api.prompts.waitingIds) api.prompts.cancelWaiting(id);
  for (const item of api.view.items()) {
    if (!isActive(item.state)) continue;
    // A plain request (not a task) was answered above, or goes with the call it belongs to.
    if (item.direction === 'received' && item.mode === 'plain') continue;
    if (item.direction === 'received') api.ledger.tasksOf(item.serverId)?.cancel(item.taskId, 'Cancelled by the test clean-up');
    else await api.tracker.cancel(item.id.slice('sent:'.length)).catch(() => undefined);
  }
  await until(api, () => api.statusBarText() === '', 'no active task after the clean-up', 30_000);
  // No editor left over for the next test: a Markdown preview (a webview) keeps the keyboard focus
  // away from the quick input and the tree the next test drives.
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await hideNotificationCenter();
}

/**
 * Closes the notification center (a no-op when it is closed). A check that reads a notification
 * opens the center and leaves it open; while it is open, Escape closes the center, not the quick
 * input on screen (VS Code binds Escape to `notifications.hideList` with a higher weight than to
 * `quickInput.hide`), so an Escape a later test presses on its pick closes the center and the pick
 * stays open. It failed only in the whole suite, where an earlier suite had opened the center.
 */
export async function hideNotificationCenter(): Promise<void> {
  await vscode.commands.executeCommand('notifications.hideList');
}

/** The activated extension's API once every named server runs: the `suiteSetup` of suites that drive the demo servers. */
export async function apiWithServersRunning(...names: string[]): Promise<McpTasksApi> {
  const { api } = await extensionApi();
  await until(api, () => names.every((n) => api.registry.get(n)?.state.kind === 'running'), `${names.join(' and ')} to run`, 60_000);
  return api;
}

/** Inside a `suite`: `cleanUp` after each of its tests. */
export function cleanUpAfterEachTest(api: () => McpTasksApi): void {
  // Nor an editor left by an earlier suite that does not clean up after each test (a Markdown
  // preview of a result keeps the keyboard focus from this suite's first quick input).
  suiteSetup(async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Nor the notification center an earlier suite left open (see hideNotificationCenter).
    await hideNotificationCenter();
  });
  teardown(async function () {
    this.timeout(60_000);
    await cleanUp(api());
  });
  // The next suite starts from a short tree: checks that read the rows in view (and hovers and
  // clicks on rows) need the rows they look for on screen, not below 30 finished tasks.
  suiteTeardown(async function () {
    this.timeout(60_000);
    // Not the command: it asks first (a modal dialog the test driver dismisses unanswered).
    const a = api();
    a.tracker.clearFinished();
    for (const i of a.view.items()) if (i.direction === 'received' && i.mode !== 'plain' && isFinished(i.state)) a.ledger.tasksOf(i.serverId)?.remove(i.taskId);
  });
}

