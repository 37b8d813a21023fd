/**
 * While the workspace is not trusted and servers it defines are kept from starting: a status-bar
 * item saying so (click: Manage Workspace Trust). It goes away the moment the workspace is trusted
 * or no server is blocked — a notification could not be withdrawn, and still said "not started
 * because the workspace is not trusted" after the user had trusted it.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../core/base/lifecycle.js';
import type { ServerRegistry } from '../../core/connection/registry.js';
import { untrustedMarkdown } from '../documents/markdown.js';

export interface TrustSignalOptions {
  readonly isTrusted: () => boolean;
  readonly onDidGrantTrust: vscode.Event<void>;
}

export class UntrustedServersSignal extends Disposable implements vscode.Disposable {
  private readonly _item: vscode.StatusBarItem;
  private _visible = false;

  constructor(
    private readonly _registry: ServerRegistry,
    private readonly _options: TrustSignalOptions = { isTrusted: () => vscode.workspace.isTrusted, onDidGrantTrust: vscode.workspace.onDidGrantWorkspaceTrust },
  ) {
    super();
    this._item = this._register(vscode.window.createStatusBarItem('mcpTasks.untrusted', vscode.StatusBarAlignment.Left, 48));
    this._item.name = vscode.l10n.t('MCP Tasks: servers not started (workspace not trusted)');
    this._item.command = 'workbench.trust.manage';
    this._register(_registry.onDidChangeState(() => this.update()));
    this._register(_registry.onDidChangeConnections(() => this.update()));
    this._register(_options.onDidGrantTrust(() => this.update()));
    this.update();
  }

  /** The status-bar text ('' when hidden); tests read it. */
  get text(): string {
    return this._visible ? this._item.text : '';
  }

  update(): void {
    // In an untrusted workspace every blocked server is blocked for that (a declined first start needs trust).
    const blocked = this._options.isTrusted() ? 0 : this._registry.connections.filter((c) => c.state.kind === 'blocked').length;
    if (blocked === 0) {
      this._item.hide();
      this._visible = false;
      return;
    }
    this._item.text = `$(shield) ${blocked === 1 ? vscode.l10n.t('1 MCP server not started') : vscode.l10n.t('{0} MCP servers not started', blocked)}`;
    const md = untrustedMarkdown();
    // No server name or path here: names come from the workspace.
    md.appendMarkdown(vscode.l10n.t('MCP servers defined by this workspace are not started because the workspace is not trusted. Click to manage workspace trust.'));
    this._item.tooltip = md;
    this._item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this._item.accessibilityInformation = { label: this._item.text.replace('$(shield) ', '') };
    this._item.show();
    this._visible = true;
  }
}
