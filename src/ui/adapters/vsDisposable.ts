import type * as vscode from 'vscode';

/** A disposable of the core (base/lifecycle.ts) as VS Code's type, for `context.subscriptions` and the like. */
export function toVs(d: { dispose(): void }): vscode.Disposable {
  return { dispose: () => d.dispose() };
}
