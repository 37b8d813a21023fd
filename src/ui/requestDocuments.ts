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
  private _next = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this._content.get(uri.toString()) ?? '# Request not found\n\nThis request is no longer waiting: it was answered, cancelled, or its server stopped.\n';
  }

  /** Registers `markdown` under a readable name; the URI stays valid until the returned disposable is disposed. */
  add(name: string, markdown: string): { uri: vscode.Uri; dispose(): void } {
    const safe = name.replace(/[\\/:*?"<>|#%]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80) || 'Request';
    const uri = vscode.Uri.from({ scheme: REQUEST_SCHEME, path: `/${++this._next}/${safe}.md` });
    this._content.set(uri.toString(), markdown);
    return {
      uri,
      dispose: () => {
        this._content.delete(uri.toString());
        this._onDidChange.fire(uri);
      },
    };
  }

  /** Shows a request rendered (Markdown preview), beside the active editor when `beside`. */
  async show(uri: vscode.Uri, beside = false): Promise<void> {
    await vscode.commands.executeCommand(beside ? 'markdown.showPreviewToSide' : 'markdown.showPreview', uri);
  }

  dispose(): void {
    this._content.clear();
    this._onDidChange.dispose();
  }
}
