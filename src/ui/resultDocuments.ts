import { createHmac, randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { showPreviewAndWait } from './requestDocuments.js';
import { parseTaskUriPath, renderTaskDocument, taskUriParts } from '../core/view/render.js';
import type { TaskView, TaskViewItem } from '../core/view/taskView.js';

export const TASK_SCHEME = 'mcp-task';

/**
 * Any extension can `openTextDocument` any URI, and a task's document holds what the user answered
 * and what the model wrote. So the URI of a task's document carries a token (its query) that only
 * this window can make: an HMAC of the task's identity under a key drawn when the extension starts.
 * A URI without it — such as the `mcp-task://<server>/received/<id>` the API's listTasks names, or
 * one guessed from a plain call's time — is answered "Task not found". The key lives as long as the
 * extension host: a document left open across a reload is opened again from the Tasks view.
 */
const documentKey = randomBytes(32);

function documentToken(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId'>): string {
  return createHmac('sha256', documentKey).update(`${item.serverId}\0${item.direction}\0${item.taskId}`).digest('base64url');
}

/** The URI of a task's document: `mcp-task://<server>/<direction>/<taskId>/<readable name>.md?<token>`. */
export function taskUri(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId' | 'title'>): vscode.Uri {
  const { authority, path } = taskUriParts(item);
  return vscode.Uri.from({ scheme: TASK_SCHEME, authority, path, query: documentToken(item) });
}

/**
 * Opens a task's document rendered (Markdown preview), its tab named after the tool or request
 * ("Preview confirm_deploy result.md"), not only the task id.
 */
export async function openTaskDocument(item: TaskViewItem): Promise<void> {
  await showPreviewAndWait(taskUri(item));
}

/** Serves read-only documents for tasks: the Task fields, then the result or the error. */
export class TaskDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;
  private readonly _sub: { dispose(): void };

  constructor(private readonly _view: TaskView) {
    // Open documents follow their task (coalesced with the rest of the UI).
    this._sub = _view.onDidChange(() => {
      for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === TASK_SCHEME) this._onDidChange.fire(doc.uri);
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const item = this.itemFor(uri);
    if (!item) return `# ${vscode.l10n.t('Task not found')}\n\n${vscode.l10n.t('No task is known for {0}. It may have expired or been cleared.', uri.toString())}\n`;
    return renderTaskDocument(item);
  }

  /** The task a URI names, if it is still known and the URI carries its token (made by this window). */
  itemFor(uri: vscode.Uri): TaskViewItem | undefined {
    const serverId = decodeURIComponent(uri.authority);
    const parts = parseTaskUriPath(uri.path);
    if (!parts || uri.query !== documentToken({ serverId, ...parts })) return undefined;
    return this._view.items().find((i) => i.serverId === serverId && i.direction === parts.direction && i.taskId === parts.taskId);
  }

  dispose(): void {
    this._sub.dispose();
    this._onDidChange.dispose();
  }
}
