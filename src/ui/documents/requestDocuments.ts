import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** Scheme of the read-only documents that show a request a server sent ("Show the full request"). */
export const REQUEST_SCHEME = 'mcp-tasks-request';

/**
 * Read-only virtual documents of requests (a TextDocumentContentProvider): never an Untitled
 * buffer that turns dirty and asks to be saved. Each document is named after what it shows
 * (e.g. `Sampling request from demo.md`) and lives while its request does.
 */
export class RequestDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly _content = new Map<string, string>();
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this._content.get(uri.toString()) ?? `# ${vscode.l10n.t('Request not found')}\n\n${vscode.l10n.t('This request is no longer waiting: it was answered, cancelled, or its server stopped.')}\n`;
  }

  /** Registers `markdown` under a readable name; the URI stays valid until the returned disposable is disposed. */
  add(name: string, markdown: string): { uri: vscode.Uri; dispose(): void } {
    const safe = name.replace(/[\\/:*?"<>|#%]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80) || 'Request';
    // A random folder, not a sequence: another extension must not open a request it cannot name.
    const uri = vscode.Uri.from({ scheme: REQUEST_SCHEME, path: `/${randomBytes(16).toString('base64url')}/${safe}.md` });
    this._content.set(uri.toString(), markdown);
    return {
      uri,
      dispose: () => {
        this._content.delete(uri.toString());
        this._onDidChange.fire(uri);
      },
    };
  }

  /**
   * Shows a request (read-only Markdown source; "Open Preview" renders it), beside the active
   * editor when `beside`, without taking the keyboard focus from the prompt or the reply.
   */
  async show(uri: vscode.Uri, beside = false): Promise<void> {
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true, viewColumn: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active });
  }

  dispose(): void {
    this._content.clear();
    this._onDidChange.dispose();
  }
}

/** The name a Markdown preview tab shows for `uri`: "Preview <file name>". */
export function previewLabel(uri: vscode.Uri): string {
  return `Preview ${decodeURIComponent(uri.path.split('/').pop() ?? '')}`;
}

/** Opens the Markdown preview of `uri` and resolves once its tab is open (at most a few seconds). */
export async function showPreviewAndWait(uri: vscode.Uri, beside = false): Promise<void> {
  const label = previewLabel(uri);
  const isOpen = () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label.includes(label.slice('Preview '.length))));
  const opened = new Promise<void>((resolve) => {
    const timer = setTimeout(done, 5_000);
    const sub = vscode.window.tabGroups.onDidChangeTabs(() => isOpen() && done());
    function done() {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    }
  });
  await vscode.commands.executeCommand(beside ? 'markdown.showPreviewToSide' : 'markdown.showPreview', uri);
  if (!isOpen()) await opened;
}

/** The view type of VS Code's own Markdown preview as an editor of one document (markdown-language-features). */
export const MARKDOWN_PREVIEW_EDITOR = 'vscode.markdown.preview.editor';

/**
 * Opens `uri` rendered beside the active editor without taking the keyboard focus: VS Code's
 * Markdown preview *editor* of that one document. (The preview commands take the focus, and once
 * loaded their webview took it back from the editor opened after it; an unlocked one also
 * followed the active editor.)
 */
export async function showRenderedBeside(uri: vscode.Uri): Promise<void> {
  await vscode.commands.executeCommand('vscode.openWith', uri, MARKDOWN_PREVIEW_EDITOR, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
}
