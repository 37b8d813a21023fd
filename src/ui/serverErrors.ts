/**
 * What a user sees when a server fails: one notification per server and failure episode (its
 * real cause, with "Show Log", "Retry" and "Open mcp.json"), and a status-bar item while any
 * server is in error. Retries with backoff (error → starting → error) do not notify again; a
 * server that ran, or was stopped or restarted by the user, starts a new episode.
 */
import * as vscode from 'vscode';
import type { ServerRegistry } from '../core/connection/registry.js';
import type { McpConnection } from '../core/connection/connection.js';
import { serverPosition } from '../core/config/lastGood.js';
import { escapeMarkdown } from '../core/base/escape.js';
import { Commands } from './commandIds.js';
import { untrustedMarkdown } from './markdown.js';
import { failed, showError, showInfo } from './notify.js';
import { openAt } from './serverConfig.js';

// The notification's buttons (English; shown through `vscode.l10n.t`, see _notify).
export const SHOW_LOG = 'Show Log';
export const RETRY = 'Retry';
export const OPEN_MCP_JSON = 'Open mcp.json';
export const OPEN_SETTINGS = 'Open Settings';

export interface ServerErrorDeps {
  readonly registry: ServerRegistry;
  readonly showLog: (connection: McpConnection) => void;
}

export class ServerErrorSignals implements vscode.Disposable {
  private readonly _item: vscode.StatusBarItem;
  private readonly _subs: Array<{ dispose(): void }> = [];
  /** Servers already notified in their current failure episode. */
  private readonly _notified = new WeakSet<McpConnection>();
  /** Every failure notification shown, for tests: server id and message. */
  readonly shown: Array<{ readonly serverId: string; readonly message: string }> = [];

  constructor(private readonly _deps: ServerErrorDeps) {
    this._item = vscode.window.createStatusBarItem('mcpTasks.serverErrors', vscode.StatusBarAlignment.Left, 49);
    this._item.name = vscode.l10n.t('MCP Tasks: server errors');
    this._item.command = Commands.focusView;
    this._item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    this._subs.push(
      _deps.registry.onDidChangeState(({ connection, state }) => {
        if (state.kind === 'error') this._notify(connection, state.message);
        else if (state.kind === 'running' || state.kind === 'stopped') this._notified.delete(connection);
        this.update();
      }),
      _deps.registry.onDidChangeConnections(() => this.update()),
    );
    this.update();
  }

  /** The status-bar text ('' when hidden); tests read it. */
  get text(): string {
    return this._visible ? this._item.text : '';
  }

  private _visible = false;

  update(): void {
    const failed = this._deps.registry.connections.filter((c) => c.state.kind === 'error');
    if (failed.length === 0) {
      this._item.hide();
      this._visible = false;
      return;
    }
    this._item.text = failed.length === 1 ? `$(error) ${failed[0]!.name}` : `$(error) ${vscode.l10n.t('{0} servers', failed.length)}`;
    const md = untrustedMarkdown();
    md.appendMarkdown(`${failed.length === 1 ? vscode.l10n.t('**MCP Tasks** — a server is in error') : vscode.l10n.t('**MCP Tasks** — {0} servers are in error', failed.length)}\n\n`);
    for (const c of failed) md.appendMarkdown(`- **${escapeMarkdown(c.name)}**: ${escapeMarkdown(c.state.kind === 'error' ? c.state.message : '')}\n`);
    md.appendMarkdown(`\n${vscode.l10n.t('Click to show the Tasks view; "Show Server Log" and "Restart Server" are on the server.')}`);
    this._item.tooltip = md;
    this._item.accessibilityInformation = { label: failed.length === 1 ? vscode.l10n.t('MCP Tasks: 1 server in error') : vscode.l10n.t('MCP Tasks: {0} servers in error', failed.length) };
    this._item.show();
    this._visible = true;
  }

  private _notify(connection: McpConnection, message: string): void {
    if (this._notified.has(connection)) return;
    this._notified.add(connection);
    this.shown.push({ serverId: connection.id, message });
    const source = connection.definition.source;
    const [showLog, retry, openMcpJson, openSettings] = [vscode.l10n.t('Show Log'), vscode.l10n.t('Retry'), vscode.l10n.t('Open mcp.json'), vscode.l10n.t('Open Settings')];
    const open = source.kind === 'workspace' ? openMcpJson : openSettings;
    void showError(vscode.l10n.t('MCP Tasks: {0}', message), showLog, retry, open).then(async (choice) => {
      if (choice === showLog) this._deps.showLog(connection);
      else if (choice === retry) {
        // The definition may have been replaced meanwhile: retry the one configured now.
        if (this._deps.registry.get(connection.id)) await this._deps.registry.restart(connection.id).catch(() => undefined);
        else void showInfo(vscode.l10n.t('MCP Tasks: "{0}" is no longer configured.', connection.name));
      } else if (choice === openMcpJson) await openServerDefinition(connection);
      else if (choice === openSettings) await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpTasks.servers');
    }).then(undefined, failed(vscode.l10n.t('The action on "{0}"', connection.name)));
  }

  dispose(): void {
    for (const s of this._subs) s.dispose();
    this._item.dispose();
  }
}

/** Opens the mcp.json that defines a workspace server, at its entry. */
export async function openServerDefinition(connection: McpConnection): Promise<void> {
  const file = connection.definition.source.file;
  let position: { line: number; column: number } | undefined;
  try {
    position = serverPosition(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(file))), connection.name);
  } catch {
    position = undefined;
  }
  await openAt(file, position);
}
