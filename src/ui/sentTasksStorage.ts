/**
 * Where the requestor keeps its sent tasks across reloads: one key of a VS Code Memento (the
 * workspace's `workspaceState`). The value is the string `TaskTracker` writes (trackerStore.ts,
 * version 3), which the Memento passes through as it is; older versions' object values are read.
 */
import type * as vscode from 'vscode';
import type { TrackerStorage } from '../core/requestor/tracker.js';

export function mementoTrackerStorage(memento: vscode.Memento, key: string): TrackerStorage {
  return { load: () => memento.get(key), save: (data) => memento.update(key, data) };
}
