/**
 * The extension's entry (package.json `main`): loads the extension's bundle (`dist/extension.js`,
 * built from extension.ts) through the code cache in the user's global storage
 * (core/startup/codeCache.ts), and hands `activate` and `deactivate` to it.
 */
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { CodeCache, type CacheOutcome, type CodeCacheReport } from './core/startup/codeCache.js';

interface ExtensionModule {
  activate(context: vscode.ExtensionContext, codeCache?: CodeCacheReport): unknown;
  deactivate?(): unknown;
}

let extension: ExtensionModule | undefined;
let codeCache: CodeCache | undefined;

export function activate(context: vscode.ExtensionContext): unknown {
  codeCache = new CodeCache(join(context.globalStorageUri.fsPath, 'code-cache'));
  // Disposed when the window goes: the caches still to write are written then.
  context.subscriptions.push(codeCache);
  extension = codeCache.load(join(__dirname, 'extension.js')) as ExtensionModule;
  // The cache's problems go to the extension's log (it has none of its own).
  return extension.activate(context, codeCache);
}

export function deactivate(): unknown {
  return extension?.deactivate?.();
}

/** What the code cache did for each bundle loaded so far, by file name (the bench, the tests). */
export function codeCacheOutcomes(): Record<string, CacheOutcome> {
  return Object.fromEntries([...(codeCache?.outcomes ?? [])].map(([file, outcome]) => [file.split(/[\\/]/).pop()!, outcome]));
}
