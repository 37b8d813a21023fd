import * as vscode from 'vscode';
import type { TaskViewItem } from '../../core/view/taskView.js';

/** How src/core/receiver/ledgerRecord.ts (`titleFor`) titles an elicitation: this, then the server's message. */
const ELICITATION_PREFIX = 'Elicitation: ';

/**
 * A task's title as shown: the kind of a received request (from its method) in the user's
 * language; tool names and the server's own message as they are.
 */
export function taskTitle(i: Pick<TaskViewItem, 'title' | 'method'>): string {
  if (i.method === 'sampling/createMessage') return vscode.l10n.t('Sampling');
  if (i.method === 'elicitation/create' && i.title.startsWith(ELICITATION_PREFIX)) return vscode.l10n.t('Elicitation: {0}', i.title.slice(ELICITATION_PREFIX.length));
  return i.title;
}
