import { createHmac, randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { Disposable } from '../../core/base/lifecycle.js';
import { showPreviewAndWait } from './requestDocuments.js';
import type { TaskOutcome } from '../../core/base/taskOutcome.js';
import { formatSize } from '../../core/base/size.js';
import { renderPlainResult, resultPlainText } from '../../core/view/plainResult.js';
import { documentName, parseTaskUriPath, renderTaskDocument, RESULT_HEAD_CHARS, RESULT_RENDER_BOUND, taskUriParts } from '../../core/view/render.js';
import type { TaskView, TaskViewItem } from '../../core/view/taskView.js';

export const TASK_SCHEME = 'mcp-task';

/**
 * Any extension can `openTextDocument` any URI, and a task's document holds what the user answered
 * and what the model wrote. So the URI of a task's document carries a token (its query) that only
 * this window can make: an HMAC of the task's identity under a key drawn when the extension starts.
 * A URI without it — such as the `mcp-task://<server>/received/<id>` the API's listTasks names, or
 * one guessed from a plain call's time — is answered "Task not found". The key lives as long as the
 * extension host: a document left open across a reload is opened again from the Tasks view.
 */
let documentKey: Buffer | undefined;

function documentToken(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId'>): string {
  // Drawn at the first document, not when the extension loads (bench: "startup load + activation, no server").
  documentKey ??= randomBytes(32);
  return createHmac('sha256', documentKey).update(`${item.serverId}\0${item.direction}\0${item.taskId}`).digest('base64url');
}

/** The URI of a task's document: `mcp-task://<server>/<direction>/<taskId>/<readable name>.md?<token>`. */
export function taskUri(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId' | 'title'>): vscode.Uri {
  const { authority, path } = taskUriParts(item);
  return vscode.Uri.from({ scheme: TASK_SCHEME, authority, path, query: documentToken(item) });
}

/**
 * Scheme of the plain-text views of a result too large to render: `mcp-task-text://<server>/<direction>/<taskId>/<part>/<name>.txt?<token>`,
 * `part` being `head` (its first part, with the "Open the full result" action) or `full`.
 */
export const TASK_TEXT_SCHEME = 'mcp-task-text';

/** The URI of a plain-text view of a task's result (same token as its document). */
export function taskTextUri(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId' | 'title'>, part: 'head' | 'full'): vscode.Uri {
  const { authority } = taskUriParts(item);
  const name = `${documentName(item)} ${part === 'head' ? '(first part)' : '(full)'}`;
  return vscode.Uri.from({ scheme: TASK_TEXT_SCHEME, authority, path: `/${item.direction}/${encodeURIComponent(item.taskId)}/${part}/${name}.txt`, query: documentToken(item) });
}

function parseTextUriPath(path: string): { direction: 'sent' | 'received'; taskId: string; part: 'head' | 'full' } | undefined {
  const m = /^\/(sent|received)\/([^/]+)\/(head|full)\/[^/]*\.txt$/.exec(path);
  if (!m) return undefined;
  try {
    return { direction: m[1] as 'sent' | 'received', taskId: decodeURIComponent(m[2]!), part: m[3] as 'head' | 'full' };
  } catch {
    return undefined;
  }
}

/**
 * Serves read-only documents for tasks: the Task fields, then the result or the error (rendered
 * Markdown, `mcp-task:`), and the plain-text views of a result too large to render (`mcp-task-text:`,
 * with the "Open the full result" CodeLens on the first part).
 */
export class TaskDocumentProvider extends Disposable implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this._onDidChange.event;
  /** A result's plain text, made once per result (a 5 MB JSON is pretty-printed once, not on every change of the view). */
  private readonly _texts = new WeakMap<TaskOutcome, string>();
  /** The rows whose result is being fetched (their document says "Loading the result…"). */
  private readonly _loading = new Set<string>();
  /** The rendered text last served per document, so a change of the view re-sends only the documents that changed. */
  private readonly _served = new Map<string, string>();

  constructor(private readonly _view: TaskView) {
    super();
    // Open documents follow their task (coalesced with the rest of the UI).
    this._register(_view.onDidChange(() => this._refresh()));
    this._register(vscode.commands.registerCommand(OPEN_FULL_RESULT, (uri: unknown) => this._openFull(uri)));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const text = this._render(uri);
    this._served.set(uri.toString(), text);
    return text;
  }

  /** "Open the full result (5.2 MB)" above the first line of a result's first part; nothing on any other document. */
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const uri = document.uri;
    if (uri.scheme !== TASK_TEXT_SCHEME || parseTextUriPath(uri.path)?.part !== 'head') return [];
    const item = this.itemFor(uri);
    if (!item?.outcome) return [];
    const size = formatSize(this._text(item.outcome).length);
    return [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title: `$(go-to-file) ${vscode.l10n.t('Open the full result ({0})', size)}`, command: OPEN_FULL_RESULT, arguments: [uri.toString()] })];
  }

  /**
   * Opens a task's document at once — the rendered one, or the plain-text first part of a result
   * over the bound — and while `retrieving` (the result being fetched) it says "Loading the
   * result…" under its header; the result follows when it is in.
   */
  async open<T>(item: TaskViewItem, retrieving: Promise<T>): Promise<T> {
    const loading = !item.outcome;
    if (loading) this._loading.add(item.id);
    try {
      const large = this._isLarge(item);
      if (large) await vscode.window.showTextDocument(taskTextUri(item, 'head'), { preview: true });
      else await showPreviewAndWait(taskUri(item));
      const outcome = await retrieving;
      // Fetched only now and over the bound: its document says so; the first part opens beside it.
      const after = this._view.item(item.id);
      if (!large && after && this._isLarge(after)) await vscode.window.showTextDocument(taskTextUri(after, 'head'), { preview: true });
      return outcome;
    } finally {
      if (loading && this._loading.delete(item.id)) this._refresh();
    }
  }

  /** The task a URI names, if it is still known and the URI carries its token (made by this window). */
  itemFor(uri: vscode.Uri): TaskViewItem | undefined {
    const serverId = decodeURIComponent(uri.authority);
    const parts = uri.scheme === TASK_TEXT_SCHEME ? parseTextUriPath(uri.path) : parseTaskUriPath(uri.path);
    if (!parts || uri.query !== documentToken({ serverId, ...parts })) return undefined;
    return this._view.items().find((i) => i.serverId === serverId && i.direction === parts.direction && i.taskId === parts.taskId);
  }

  override dispose(): void {
    super.dispose();
    this._served.clear();
  }

  private _render(uri: vscode.Uri): string {
    const item = this.itemFor(uri);
    if (!item) return `# ${vscode.l10n.t('Task not found')}\n\n${vscode.l10n.t('No task is known for {0}. It may have expired or been cleared.', uri.toString())}\n`;
    if (uri.scheme === TASK_TEXT_SCHEME) {
      if (!item.outcome) return `${item.title}\n\n${this._loading.has(item.id) ? vscode.l10n.t('Loading the result…') : vscode.l10n.t('No result yet.')}\n`;
      return renderPlainResult(item, this._text(item.outcome), parseTextUriPath(uri.path)?.part ?? 'head', RESULT_HEAD_CHARS);
    }
    return renderTaskDocument(item, { loading: this._loading.has(item.id), resultChars: item.outcome ? this._text(item.outcome).length : 0 });
  }

  private _text(outcome: TaskOutcome): string {
    let text = this._texts.get(outcome);
    if (text === undefined) this._texts.set(outcome, (text = resultPlainText(outcome)));
    return text;
  }

  private _isLarge(item: TaskViewItem): boolean {
    return item.outcome?.kind === 'result' && this._text(item.outcome).length > RESULT_RENDER_BOUND;
  }

  /** Re-sends the open documents whose text changed (a 5 MB document is not re-sent, nor its preview re-rendered, on every change of the view). */
  private _refresh(): void {
    const open = new Set<string>();
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== TASK_SCHEME && doc.uri.scheme !== TASK_TEXT_SCHEME) continue;
      const key = doc.uri.toString();
      open.add(key);
      if (this._served.get(key) !== this._render(doc.uri)) this._onDidChange.fire(doc.uri);
    }
    // Closed documents are asked for again when reopened: what they were served is not kept.
    for (const key of this._served.keys()) if (!open.has(key)) this._served.delete(key);
  }

  /** "Open the full result": only for a first-part document this window made (its token checked again). */
  private async _openFull(arg: unknown): Promise<void> {
    if (typeof arg !== 'string') return;
    const uri = vscode.Uri.parse(arg, true);
    const item = uri.scheme === TASK_TEXT_SCHEME ? this.itemFor(uri) : undefined;
    if (!item) return;
    await vscode.window.showTextDocument(taskTextUri(item, 'full'), { preview: false });
  }
}

/** The command of the "Open the full result" CodeLens (not in the palette: it takes a document this window made). */
export const OPEN_FULL_RESULT = 'mcpTasks.openFullResult';
