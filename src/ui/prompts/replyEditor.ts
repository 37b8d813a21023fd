import * as vscode from 'vscode';
import { Disposable } from '../../core/base/lifecycle.js';
import { PROMPT_HIDDEN, type PromptHidden } from './prompts.js';
import { MARKDOWN_PREVIEW_EDITOR, showRenderedBeside, type RequestDocuments } from '../documents/requestDocuments.js';
import { failed, showInfo } from '../adapters/notify.js';
import { Commands, ContextKeys } from '../commands/commandIds.js';

/** Scheme of the reply editors ("Write the reply myself"): an in-memory file system. */
export const REPLY_SCHEME = 'mcp-tasks-reply';

/**
 * The folder of a reply's path, which the editor's breadcrumb shows: the request's id made
 * readable (`request:v3-2026/request-2` → `request-v3-2026-request-2`; percent-encoded, it read
 * `request%3Av3-2026%2Frequest-2`), numbered when another request's reply already has it.
 */
export function replyFolder(id: string, used: ReadonlySet<string>): string {
  const base = id.replace(/[\\/:*?"<>|#%\s]+/g, '-').replace(/^-+|-+$/g, '') || 'request';
  let folder = base;
  for (let n = 2; used.has(folder); n++) folder = `${base}-${n}`;
  return folder;
}

interface OpenReply {
  readonly uri: vscode.Uri;
  readonly send: (text: string) => void;
  readonly requestUri: vscode.Uri;
}

/**
 * "Write the reply myself": a real Markdown editor for the reply, with the request rendered
 * beside it (a Markdown preview). Nothing is sent until the user runs "Send Reply" (the editor's title button, its
 * CodeLens, or the command palette). Closing the editor sends nothing: the request waits again,
 * and Respond reopens the editor with the draft. Drafts live in memory only (this file system)
 * and are saved as typed, so closing never asks to save.
 */
export class ReplyEditors extends Disposable implements vscode.FileSystemProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly _files = new Map<string, { data: Uint8Array; mtime: number; ctime: number }>();
  private readonly _open = new Map<string, OpenReply>();
  /** Open replies whose opening is over: the reply shown with the focus, the request beside it. */
  private readonly _shown = new Set<string>();
  private readonly _onDidChangeFile = this._register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
  readonly onDidChangeFile = this._onDidChangeFile.event;
  /** The folder of each request's reply (see {@link replyFolder}), the same at each opening so its draft is found again. */
  private readonly _folders = new Map<string, string>();

  constructor(private readonly _requests: RequestDocuments) {
    super();
    // Saved as typed: a draft never makes the editor dirty, so closing it never asks to save.
    this._register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === REPLY_SCHEME && e.document.isDirty) void e.document.save();
      }),
    );
  }

  /** The URIs of open reply editors (for tests). */
  get openUris(): vscode.Uri[] {
    return [...this._open.values()].map((o) => o.uri);
  }

  /**
   * The URIs of open reply editors whose opening is over (for tests): until then the editor may
   * take the keyboard focus once more, closing a quick input opened meanwhile.
   */
  get shownUris(): vscode.Uri[] {
    return [...this._open.values()].filter((o) => this._shown.has(o.uri.toString())).map((o) => o.uri);
  }

  /**
   * Opens the reply editor for request `id` (the draft from a previous opening, if any) with
   * the request beside it; resolves the text on Send Reply, {@link PROMPT_HIDDEN} when the
   * editor is closed unsent, and undefined when `token` is cancelled (the request was withdrawn).
   */
  async open(
    id: string,
    o: { readonly serverName: string; readonly title: string; readonly requestMarkdown: string },
    token: vscode.CancellationToken,
  ): Promise<string | PromptHidden | undefined> {
    const name = vscode.l10n.t('Reply to {0} - {1}', o.serverName, o.title).replace(/[\\/:*?"<>|#%]+/g, ' ').replace(/\s+/g, ' ').trim();
    let folder = this._folders.get(id);
    if (!folder) this._folders.set(id, (folder = replyFolder(id, new Set(this._folders.values()))));
    const uri = vscode.Uri.from({ scheme: REPLY_SCHEME, path: `/${folder}/${name}.md` });
    if (!this._files.has(uri.toString())) this._write(uri, new TextEncoder().encode(''));
    const request = this._requests.add(vscode.l10n.t('Request - {0} - {1}', o.serverName, o.title), o.requestMarkdown);
    const subs: vscode.Disposable[] = [];
    try {
      const result = await new Promise<string | PromptHidden | undefined>((resolve) => {
        let done = false;
        const finish = (r: string | PromptHidden | undefined) => {
          if (done) return;
          done = true;
          resolve(r);
        };
        this._open.set(uri.toString(), { uri, requestUri: request.uri, send: (text) => finish(text) });
        this._openChanged();
        subs.push(
          token.onCancellationRequested(() => finish(undefined)),
          vscode.window.tabGroups.onDidChangeTabs((e) => {
            if (e.closed.some((t) => isTabFor(t, uri)) && !openTabs(uri).length) finish(PROMPT_HIDDEN);
          }),
        );
        void (async () => {
          const doc = await vscode.workspace.openTextDocument(uri);
          // The reply, then the request rendered beside it (its Markdown made safe:
          // core/base/serverMarkdown.ts) without taking the focus; the reply is shown once more
          // if the preview took the focus meanwhile — only then: the user may already have moved
          // on (typing, or the command palette, which a focused editor would close).
          await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One, preserveFocus: false });
          // Best effort: the reply is what matters; where the preview cannot open, the request shows as its Markdown source.
          await showRenderedBeside(request.uri).then(undefined, () => this._requests.show(request.uri, true));
          if (!done && vscode.window.activeTextEditor?.document.uri.toString() !== uri.toString()) {
            await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One, preserveFocus: false });
          }
          if (!done) this._shown.add(uri.toString());
        })().catch(() => finish(PROMPT_HIDDEN));
      });
      if (result !== PROMPT_HIDDEN) {
        // Sent or withdrawn: close the reply, and forget the draft.
        this._files.delete(uri.toString());
        this._folders.delete(id);
        await closeTabs(openTabs(uri));
      }
      // Closed unsent too: the request beside goes with the reply (Respond shows both again).
      await closeTabs([...openTabs(request.uri), ...previewTabs(request.uri)]);
      return result;
    } finally {
      for (const s of subs) s.dispose();
      this._open.delete(uri.toString());
      this._shown.delete(uri.toString());
      this._openChanged();
      request.dispose();
    }
  }

  /** Keeps "Send Reply" in the palette while a reply is open (the focus may be on the request beside it). */
  private _openChanged(): void {
    void vscode.commands.executeCommand('setContext', ContextKeys.replyOpen, this._open.size > 0);
  }

  /** Brings the open reply editor of request `id` to the front (Respond while it is open). */
  reveal(id: string): void {
    const prefix = `/${this._folders.get(id) ?? ''}/`;
    const open = [...this._open.values()].find((o) => o.uri.path.startsWith(prefix));
    if (open) void vscode.window.showTextDocument(open.uri, { preview: false, preserveFocus: false }).then(undefined, failed(vscode.l10n.t('Opening the reply')));
  }

  /** "Send Reply": sends the reply in `uri`, else the active editor's, else the only one open (the focus on the request beside it). */
  async send(uri?: vscode.Uri): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    const only = !uri && this._open.size === 1 ? [...this._open.values()][0] : undefined;
    const open = (target && this._open.get(target.toString())) || only;
    if (!open) {
      void showInfo(vscode.l10n.t('MCP Tasks: this is not a reply waiting to be sent (it was sent, or its request is no longer waiting).'));
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === open.uri.toString());
    const text = doc?.getText() ?? new TextDecoder().decode(this._files.get(open.uri.toString())?.data ?? new Uint8Array());
    if (!text.trim()) {
      void showInfo(vscode.l10n.t('MCP Tasks: the reply is empty: write it in the editor, then Send Reply.'));
      return;
    }
    open.send(text);
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!this._open.has(document.uri.toString())) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    return [
      new vscode.CodeLens(top, { title: `$(send) ${vscode.l10n.t('Send Reply')}`, command: Commands.sendReply, arguments: [document.uri] }),
      new vscode.CodeLens(top, { title: `$(open-preview) ${vscode.l10n.t('Show the request rendered')}`, command: 'markdown.showPreviewToSide', arguments: [this._open.get(document.uri.toString())!.requestUri] }),
    ];
  }

  // FileSystemProvider: an in-memory folder of drafts.
  watch(): vscode.Disposable {
    return { dispose: () => undefined };
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this._files.get(uri.toString());
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: f.ctime, mtime: f.mtime, size: f.data.byteLength };
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  readFile(uri: vscode.Uri): Uint8Array {
    const f = this._files.get(uri.toString());
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this._write(uri, content);
  }
  delete(uri: vscode.Uri): void {
    this._files.delete(uri.toString());
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Reply drafts cannot be renamed');
  }

  override dispose(): void {
    super.dispose();
    this._files.clear();
  }

  private _write(uri: vscode.Uri, data: Uint8Array): void {
    const now = Date.now();
    const old = this._files.get(uri.toString());
    this._files.set(uri.toString(), { data, mtime: now, ctime: old?.ctime ?? now });
    this._onDidChangeFile.fire([{ type: old ? vscode.FileChangeType.Changed : vscode.FileChangeType.Created, uri }]);
  }
}

function isTabFor(tab: vscode.Tab, uri: vscode.Uri): boolean {
  return tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString();
}

/** The rendered tabs of `uri` (the Markdown preview editor). */
function previewTabs(uri: vscode.Uri): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === MARKDOWN_PREVIEW_EDITOR && t.input.uri.toString() === uri.toString());
}

function openTabs(uri: vscode.Uri): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => isTabFor(t, uri));
}

async function closeTabs(tabs: vscode.Tab[]): Promise<void> {
  if (tabs.length) await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
}
