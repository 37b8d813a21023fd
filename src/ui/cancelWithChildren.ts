import * as vscode from 'vscode';
import { isCancellable, type TaskView, type TaskViewItem } from '../core/view/taskView.js';
import { stateLabel } from './tasksTree.js';

/** What to cancel when a sent task waits on requests its server sent this window. */
export type CancelScope = 'all' | 'children';

/** The open requests a sent task waits on (nested under it in the tree, see core/view/causal.ts). */
export function openChildren(view: TaskView, parent: TaskViewItem): TaskViewItem[] {
  return view.items().filter((i) => i.parentId === parent.id && isCancellable(i.state));
}

/**
 * Asks what to cancel when a sent task waits on requests: both, or only the requests (the task
 * goes on without their answer). Cancelling only the task is no choice: requests nothing waits
 * for are cancelled when it ends (causal.ts). A quick pick, not a modal: keyboard-first, and
 * never dismissed unseen. Undefined: the user escaped, nothing is cancelled.
 */
export async function askCancelScope(parent: TaskViewItem, children: readonly TaskViewItem[]): Promise<CancelScope | undefined> {
  const one = children.length === 1 ? children[0]! : undefined;
  const waitsOn = one ? `"${one.title}" (${stateLabel(one.state)})` : `${children.length} requests`;
  type Row = vscode.QuickPickItem & { readonly scope: CancelScope };
  const rows: Row[] = [
    { label: `Cancel "${parent.title}" and ${one ? 'its request' : 'its requests'}`, detail: `Also cancels ${waitsOn}.`, scope: 'all' },
    {
      label: `Cancel only ${one ? 'the request' : 'the requests'}`,
      detail: `"${parent.title}" goes on; the server hears that ${one ? 'its request was' : 'its requests were'} cancelled.`,
      scope: 'children',
    },
  ];
  const pick = await vscode.window.showQuickPick(rows, {
    title: `Cancel "${parent.title}" (${parent.serverName})`,
    placeHolder: `"${parent.title}" waits on ${waitsOn}: what should be cancelled?`,
  });
  return pick?.scope;
}
