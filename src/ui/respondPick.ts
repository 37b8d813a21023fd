import * as vscode from 'vscode';
import type { TaskView } from '../core/view/taskView.js';
import type { PromptQueue } from './prompts.js';
import { showInfo } from './notify.js';
import { taskTitle } from './taskTitle.js';
import { stateIcon, stateLabel, taskDescription } from './tasksTree.js';

/**
 * "Respond…" without an argument: the request to open. With exactly one waiting, that one (no
 * "which request?" pick); with several, a pick of every waiting request — received tasks and plain
 * requests alike (a plain request that was hidden waits here too). Undefined when none or Escape.
 */
export async function pickWaitingPrompt(prompts: PromptQueue, view: TaskView): Promise<string | undefined> {
  const ids = prompts.waitingIds;
  if (ids.length === 0) {
    void showInfo(vscode.l10n.t('MCP Tasks: nothing is waiting for you.'));
    return undefined;
  }
  if (ids.length === 1) return ids[0];
  const pick = await vscode.window.showQuickPick(
    ids.map((id) => {
      const i = view.item(id);
      if (i) {
        return {
          label: `$(${stateIcon(i.state).id}) ${taskTitle(i)}`,
          description: `${i.serverName} · ${vscode.l10n.t('received')} · ${stateLabel(i.state)}`,
          detail: `${taskDescription(i)} · ${i.taskId}`,
          id,
        };
      }
      const d = prompts.describe(id);
      return { label: `$(bell-dot) ${d?.title ?? id}`, description: `${d?.serverName ?? ''} · ${vscode.l10n.t('request (not a task)')} · ${vscode.l10n.t('waiting for you')}`, id };
    }),
    { placeHolder: vscode.l10n.t('Respond to which request?'), matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.id;
}
