// Helpers shared by the extension-host suites.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../src/extension';

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
export function until(api: McpTasksApi, check: () => boolean, what: string, ms = 30_000): Promise<void> {
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
      vscode.window.onDidChangeActiveTextEditor(recheck),
    );
  });
}
