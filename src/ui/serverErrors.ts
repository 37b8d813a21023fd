/**
 * What a user sees when a server fails, one signal per server and failure episode:
 * - while it is retried by itself (error with a retry → starting → error …), a notification that
 *   says what is happening now — updated on every state change, withdrawn the moment it runs
 *   again, is stopped or gives up (a message could not be withdrawn: "restarting in 1 s" stayed
 *   on screen after the server was back, or had given up); its Cancel stops the retries;
 * - when it fails for good (no retry), one error message with its real cause and "Show Log",
 *   "Retry" and "Open mcp.json" — a state that stays true until the user acts;
 * - and a status-bar item while any server is in error.
 * A server that ran, or that the user stopped or started again (attempt 1), starts a new episode.
 */
import * as vscode from 'vscode';
import type { ServerRegistry } from '../core/connection/registry.js';
import type { McpConnection } from '../core/connection/connection.js';
import { serverPosition } from '../core/config/lastGood.js';
import { escapeMarkdown } from '../core/base/escape.js';
import { Commands } from './commandIds.js';
import { untrustedMarkdown } from './markdown.js';
import { failed, showError, showInfo, showLiveNotice, type LiveNotice } from './notify.js';
import { describeState } from '../core/connection/connection.js';
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
  /** The notification of a server being retried, while it is. */
  private readonly _retrying = new Map<McpConnection, LiveNotice>();
  /** Every failure notification shown, for tests: server id and message. */
  readonly shown: Array<{ readonly serverId: string; readonly message: string }> = [];

  constructor(private readonly _deps: ServerErrorDeps) {
    this._item = vscode.window.createStatusBarItem('mcpTasks.serverErrors', vscode.StatusBarAlignment.Left, 49);
    this._item.name = vscode.l10n.t('MCP Tasks: server errors');
    this._item.command = Commands.focusView;
    this._item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    this._subs.push(
      _deps.registry.onDidChangeState(({ connection, state }) => {
        this._stateChanged(connection, state);
        this.update();
      }),
      _deps.registry.onDidChangeConnections(() => {
        // A server no longer configured: its retries ended with it.
        for (const c of [...this._retrying.keys()]) if (this._deps.registry.get(c.id) !== c) this._endRetrying(c);
        this.update();
      }),
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

  /** The texts of the retry notifications shown now (tests read them). */
  get retrying(): string[] {
    return [...this._retrying.values()].map((n) => n.text);
  }

  private _stateChanged(connection: McpConnection, state: McpConnection['state']): void {
    switch (state.kind) {
      case 'error':
        if (state.retryAt !== undefined) this._showRetrying(connection, vscode.l10n.t('MCP Tasks: {0}', state.message));
        else {
          // Given up, or failed for good: the retry notification gives way to the one that stays true.
          this._endRetrying(connection);
          this._notify(connection, state.message);
        }
        return;
      case 'starting':
        if (state.attempt > 1) {
          this._retrying.get(connection)?.update(vscode.l10n.t('MCP Tasks: "{0}": {1}…', connection.name, describeState(state)));
          return;
        }
        // Started anew (by the user, or a first start): a new episode.
        this._endRetrying(connection);
        this._notified.delete(connection);
        return;
      case 'running':
      case 'stopped':
        this._endRetrying(connection);
        this._notified.delete(connection);
        return;
      case 'blocked':
      case 'needs-sign-in':
      case 'credentials-rejected':
        // Each has its own signal (the tree row, the sign-in notification, the credentials message).
        this._endRetrying(connection);
        return;
    }
  }

  private _showRetrying(connection: McpConnection, message: string): void {
    const notice = this._retrying.get(connection);
    if (notice) {
      notice.update(message);
      return;
    }
    this._retrying.set(
      connection,
      showLiveNotice(message, {
        // "Cancel": stop retrying (the server is stopped; "Start Server" starts it again).
        onCancel: () => {
          this._retrying.delete(connection);
          if (this._deps.registry.get(connection.id) === connection) void this._deps.registry.stop(connection.id).catch(() => undefined);
        },
      }),
    );
  }

  private _endRetrying(connection: McpConnection): void {
    this._retrying.get(connection)?.dispose();
    this._retrying.delete(connection);
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
    for (const n of this._retrying.values()) n.dispose();
    this._retrying.clear();
    this._item.dispose();
  }
}

/**
 * For a start the user asked for that failed: rethrows (the command's own error message) unless
 * the server's state already shows the failure — an error (notified here once per episode), a
 * sign-in or credentials problem, or a block (each has its own signal). One failure, one message.
 */
export function unlessShownByState(registry: Pick<ServerRegistry, 'get'>, id: string): (e: unknown) => void {
  return (e) => {
    const kind = registry.get(id)?.state.kind;
    if (kind === 'error' || kind === 'needs-sign-in' || kind === 'credentials-rejected' || kind === 'blocked') return;
    throw e;
  };
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
