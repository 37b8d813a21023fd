import * as vscode from 'vscode';
import type { TaskView, TaskViewItem } from '../../core/view/taskView.js';
import type { PromptQueue } from '../prompts/prompts.js';
import { showInfo } from '../adapters/notify.js';
import { taskPickRow } from '../view/taskPresentation.js';
import { plainLabel } from '../../core/base/quote.js';

/**
 * What "Respond…" offers: every request waiting for the user — the view's list
 * ({@link TaskView.waitingForUser}, the same the badge and the status bar count) — and the prompts
 * that are no server's request but wait to be resumed (a Run Tool… form closed unfinished).
 */
export function respondables(prompts: PromptQueue, view: TaskView): { readonly requests: TaskViewItem[]; readonly drafts: string[] } {
  const requests = view.waitingForUser();
  const drafts = prompts.waitingIds.filter((id) => !view.item(id));
  return { requests, drafts };
}

/**
 * The request "Respond" opens for `id`: the request itself, or for a sent task that waits for
 * input (`input_required`: its row was clicked), the request waiting under it.
 */
export function respondTarget(view: TaskView, id: string): string {
  const item = view.item(id);
  if (item?.direction !== 'sent') return id;
  return view.childrenOf(id).find((c) => c.state === 'waitingForUser')?.id ?? id;
}

/**
 * "Respond…" without an argument: the request to open. With exactly one waiting, that one (no
 * "which request?" pick); with several, a pick of every waiting request — received tasks, plain
 * requests and Run Tool… drafts alike. Undefined when none or Escape.
 */
export async function pickWaitingPrompt(prompts: PromptQueue, view: TaskView): Promise<string | undefined> {
  const { requests, drafts } = respondables(prompts, view);
  if (requests.length + drafts.length === 0) {
    void showInfo(vscode.l10n.t('MCP Tasks: nothing is waiting for you.'));
    return undefined;
  }
  if (requests.length + drafts.length === 1) return requests[0]?.id ?? drafts[0];
  const pick = await vscode.window.showQuickPick(
    [
      ...requests.map((i) => ({ ...taskPickRow(i, i.kind === 'request' ? vscode.l10n.t('request (not a task)') : vscode.l10n.t('received')), id: i.id })),
      ...drafts.map((id) => {
        const d = prompts.describe(id);
        return { label: `$(edit) ${plainLabel(d?.title ?? id)}`, description: `${plainLabel(d?.serverName ?? '')} · ${vscode.l10n.t('your form, closed unfinished')}`, id };
      }),
    ],
    { placeHolder: vscode.l10n.t('Respond to which request?'), matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.id;
}
