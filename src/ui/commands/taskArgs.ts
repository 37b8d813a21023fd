import * as vscode from 'vscode';
import type { TaskViewItem } from '../../core/view/taskView.js';
import { showWarning } from '../adapters/notify.js';
import { taskTitle } from '../view/taskTitle.js';
import { quoteText } from '../../core/base/quote.js';

/**
 * Where the task argument of a command came from. Any extension can run our commands with any
 * argument (`executeCommand('mcpTasks.cancelTask', 'sent:<server>/<id>')`), and ids are easy to
 * learn (the API's listTasks, a plain call's time). So a command that changes a task acts at once
 * only on what the user pointed at: a row of the Tasks tree (the very node object the tree made,
 * which VS Code hands back to its context-menu and inline commands) or a pick from the command's
 * own quick pick. Anything else — an id string, an object that looks like a row — is confirmed by
 * the user in a modal dialog naming the task first.
 */
export type TaskArgSource = 'none' | 'tree' | 'other';

export function taskArgSource(arg: unknown, madeByTree: (node: object) => boolean): TaskArgSource {
  if (arg === undefined || arg === null) return 'none';
  return typeof arg === 'object' && madeByTree(arg) ? 'tree' : 'other';
}

/** Asks the user whether to go on with `action` (localised button text) on a task named by another extension or a command link. */
export async function confirmTaskAction(item: TaskViewItem, action: string): Promise<boolean> {
  const choice = await Promise.resolve(
    showWarning(
      // A modal dialog is plain text, but the title, server name and id are the server's and the
      // workspace's: quoted, none can start a line of its own or pass for ours (quote.ts).
      vscode.l10n.t('{0}: {1} on {2}?', action, quoteText(taskTitle(item)), quoteText(item.serverName)),
      { modal: true, detail: vscode.l10n.t('This was asked by a command with an argument (another extension, or a link), not from the Tasks view. Task id: {0}', quoteText(item.taskId)) },
      action,
    ),
  ).catch(() => undefined);
  return choice === action;
}
