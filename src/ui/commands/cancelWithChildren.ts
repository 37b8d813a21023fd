import * as vscode from 'vscode';
import type { OpenRequests } from '../../core/view/openRequests.js';
import type { CancelPlainRequest } from '../../core/view/taskActions.js';
import { isCancellable, type ReceivedTaskViewItem, type RequestViewItem, type TaskView, type TaskViewItem } from '../../core/view/taskView.js';
import type { PromptQueue } from '../prompts/prompts.js';
import { stateLabel } from '../view/taskPresentation.js';
import { plainLabel, quoteLabel } from '../../core/base/quote.js';

/**
 * How a plain received request (not a task) is cancelled: by answering "cancel" when its prompt
 * waits for Respond, else by withdrawing it (core/view/taskActions.ts does the rest).
 */
export function plainRequestCanceller(prompts: PromptQueue, requests: OpenRequests): CancelPlainRequest {
  return (item, reason) => prompts.cancelWaiting(item.id) || requests.withdraw(item.id, reason);
}

/** What to cancel when a sent task waits on requests its server sent this window. */
export type CancelScope = 'all' | 'children';

/** The open requests a sent task waits on (nested under it in the tree, see core/view/causal.ts). */
export function openChildren(view: TaskView, parent: TaskViewItem): Array<ReceivedTaskViewItem | RequestViewItem> {
  // Only what a server sent nests under a row: a sent call is never a child.
  return view.items().filter((i): i is ReceivedTaskViewItem | RequestViewItem => i.kind !== 'sent' && i.parentId === parent.id && isCancellable(i.state));
}

/**
 * Asks what to cancel when a sent task waits on requests: both, or only the requests (the task
 * goes on without their answer). Cancelling only the task is no choice: requests nothing waits
 * for are cancelled when it ends (causal.ts). A quick pick, not a modal: keyboard-first, and
 * never dismissed unseen. Undefined: the user escaped, nothing is cancelled.
 */
export async function askCancelScope(parent: TaskViewItem, children: readonly TaskViewItem[]): Promise<CancelScope | undefined> {
  const one = children.length === 1 ? children[0]! : undefined;
  // Titles are the server's words: quoted, one line, no icon drawn (quote.ts).
  const title = quoteLabel(parent.title);
  const waitsOn = one ? `${quoteLabel(one.title)} (${stateLabel(one.state)})` : vscode.l10n.t('{0} requests', children.length);
  type Row = vscode.QuickPickItem & { readonly scope: CancelScope };
  const rows: Row[] = [
    { label: one ? vscode.l10n.t('Cancel {0} and its request', title) : vscode.l10n.t('Cancel {0} and its requests', title), detail: vscode.l10n.t('Also cancels {0}.', waitsOn), scope: 'all' },
    {
      label: one ? vscode.l10n.t('Cancel only the request') : vscode.l10n.t('Cancel only the requests'),
      detail: one ? vscode.l10n.t('{0} goes on; the server hears that its request was cancelled.', title) : vscode.l10n.t('{0} goes on; the server hears that its requests were cancelled.', title),
      scope: 'children',
    },
  ];
  const pick = await vscode.window.showQuickPick(rows, {
    title: vscode.l10n.t('Cancel {0} ({1})', title, plainLabel(parent.serverName)),
    placeHolder: vscode.l10n.t('{0} waits on {1}: what should be cancelled?', title, waitsOn),
  });
  return pick?.scope;
}
