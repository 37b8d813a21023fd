/**
 * Where the requestor keeps its sent tasks across reloads. With a workspace storage folder
 * (`context.storageUri`, a `file:` folder in a local or remote extension host): the file
 * `sent-tasks.json` in it (src/core/requestor/fileStorage.ts: the Memento sends every
 * key to the main process on every update, ~12 ms per change with 1,000 stored results). The
 * Memento value of earlier releases is read once and cleared after the first file write.
 * Without one (a window with no folder): one key of the workspace Memento, as before.
 */
import * as vscode from 'vscode';
import { join } from 'node:path';
import { fileTrackerStorage, SENT_TASKS_FILE } from '../../core/requestor/fileStorage.js';
import type { TrackerStorage } from '../../core/requestor/tracker.js';
import { showWarning } from './notify.js';

export function mementoTrackerStorage(memento: vscode.Memento, key: string): TrackerStorage {
  return { load: () => memento.get(key), save: (data) => memento.update(key, data) };
}

/** The file when the workspace has a storage folder, otherwise the Memento key. */
export function sentTasksStorage(context: Pick<vscode.ExtensionContext, 'storageUri' | 'workspaceState'>, key: string): TrackerStorage {
  const folder = context.storageUri;
  if (folder?.scheme !== 'file') return mementoTrackerStorage(context.workspaceState, key);
  let warnedWrite = false;
  return fileTrackerStorage({
    file: join(folder.fsPath, SENT_TASKS_FILE),
    legacy: { load: () => context.workspaceState.get(key), clear: () => context.workspaceState.update(key, undefined) },
    onProblem: (message, kind) => {
      if (kind === 'write') {
        if (warnedWrite) return;
        warnedWrite = true;
      }
      void showWarning(vscode.l10n.t('MCP Tasks: sent tasks: {0}', message));
    },
  });
}
