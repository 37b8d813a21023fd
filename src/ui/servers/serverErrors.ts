/**
 * What a user sees when a server fails: one error message per server and failure episode, with
 * its real cause and "Show Log", "Retry" and "Open mcp.json" — worded to stay true (the cause,
 * never the retry it announces: a message cannot be withdrawn, and "restarting in 1 s" stayed on
 * screen after the server was back, or had given up); and a status-bar item that follows every
 * state change while a server is in error or being retried (what happens now: "reconnecting in
 * 4 s", "starting (attempt 3)", given up), gone when it runs again. Retries with backoff
 * (error → starting → error) do not notify again; a server that ran, or that the user stopped or
 * started again (attempt 1), starts a new episode. A failure message cannot be withdrawn, so once
 * the server runs again a short "running again" message follows the one shown for its episode, and
 * that message's Retry, pressed late, restarts nothing that runs.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../core/base/lifecycle.js';
import type { ServerRegistry } from '../../core/connection/registry.js';
import type { ServerConnection } from '../../core/connection/connectionPort.js';
import { describeState } from '../../core/connection/connectionState.js';
import { errorCause } from '../../core/connection/connectionState.js';
import { serverPosition } from '../../core/config/lastGood.js';
import { readConfigFile } from '../../core/config/boundedRead.js';
import { definitionFingerprint } from '../../core/config/config.js';
import type { FailureMemory } from '../../core/config/failureMemory.js';
import { escapeMarkdown } from '../../core/base/escape.js';
import { plainLabel } from '../../core/base/quote.js';
import { Commands } from '../commands/commandIds.js';
import { untrustedMarkdown } from '../documents/markdown.js';
import { failed, showError, showInfo } from '../adapters/notify.js';
import { openAt } from './serverConfig.js';

// The notification's buttons (English; shown through `vscode.l10n.t`, see _notify).
export const SHOW_LOG = 'Show Log';
export const RETRY = 'Retry';
export const OPEN_MCP_JSON = 'Open mcp.json';
export const OPEN_SETTINGS = 'Open Settings';

export interface ServerErrorDeps {
  readonly registry: ServerRegistry;
  readonly showLog: (connection: ServerConnection) => void;
  /** Start failures of local (stdio) servers announced by earlier windows (failureMemory.ts); none: every one is announced. */
  readonly memory?: FailureMemory;
}

export class ServerErrorSignals extends Disposable implements vscode.Disposable {
  private readonly _item: vscode.StatusBarItem;
  /** Servers in a failure episode (notified once in it). */
  private readonly _notified = new WeakSet<ServerConnection>();
  /** Servers whose failure message is on screen (shown in this episode): told when they are back. */
  private readonly _announced = new WeakSet<ServerConnection>();
  /** Every failure notification shown, for tests: server id and message. */
  readonly shown: Array<{ readonly serverId: string; readonly message: string }> = [];
  /** Every "running again" message shown, for tests: server id. */
  readonly shownBack: string[] = [];

  constructor(private readonly _deps: ServerErrorDeps) {
    super();
    this._item = this._register(vscode.window.createStatusBarItem('mcpTasks.serverErrors', vscode.StatusBarAlignment.Left, 49));
    this._item.name = vscode.l10n.t('MCP Tasks: server errors');
    this._item.command = Commands.focusView;
    this._item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    this._register(
      _deps.registry.onDidChangeState(({ connection, state }) => {
        if (state.kind === 'error') this._notify(connection, errorCause(state));
        // A run, a stop, or a start the user asked for (attempt 1; retries count on): a new episode.
        else if (state.kind === 'running' || state.kind === 'stopped' || (state.kind === 'starting' && state.attempt === 1)) this._notified.delete(connection);
        // Back: the failure message with Retry on screen is stale; a short message says so (a stop the user made needs none).
        if (state.kind === 'running' && this._announced.has(connection)) {
          this.shownBack.push(connection.id);
          void showInfo(vscode.l10n.t('MCP Tasks: "{0}" is running again.', connection.name));
        }
        if (state.kind === 'running' || state.kind === 'stopped') this._announced.delete(connection);
        this.update();
      }),
    );
    this._register(_deps.registry.onDidChangeConnections(() => this.update()));
    this.update();
  }

  /** The status-bar text ('' when hidden); tests read it. */
  get text(): string {
    return this._visible ? this._item.text : '';
  }

  private _visible = false;

  /** Servers in error, or being retried after one (a start at attempt 2 or later in an episode). */
  private _failing(): ServerConnection[] {
    return this._deps.registry.connections.filter((c) => c.state.kind === 'error' || (c.state.kind === 'starting' && c.state.attempt > 1 && this._notified.has(c)));
  }

  update(): void {
    const failing = this._failing();
    if (failing.length === 0) {
      this._item.hide();
      this._visible = false;
      return;
    }
    const retrying = failing.every((c) => c.state.kind === 'starting');
    const icon = retrying ? '$(sync~spin)' : '$(error)';
    // The name is the configuration's text: drawn as written, no `$(icon)` of its own, on one line.
    this._item.text = failing.length === 1 ? `${icon} ${plainLabel(failing[0]!.name)}` : `${icon} ${vscode.l10n.t('{0} servers', failing.length)}`;
    const md = untrustedMarkdown();
    md.appendMarkdown(`${failing.length === 1 ? vscode.l10n.t('**MCP Tasks** — a server is in error') : vscode.l10n.t('**MCP Tasks** — {0} servers are in error', failing.length)}\n\n`);
    // What happens now, redrawn on every state change (a retry's countdown, a start attempt, given up).
    for (const c of failing) md.appendMarkdown(`- **${escapeMarkdown(c.name)}**: ${escapeMarkdown(c.state.kind === 'error' ? c.state.message : describeState(c.state))}\n`);
    md.appendMarkdown(`\n${vscode.l10n.t('Click to show the Tasks view; "Show Server Log" and "Restart Server" are on the server.')}`);
    this._item.tooltip = md;
    this._item.accessibilityInformation = { label: failing.length === 1 ? vscode.l10n.t('MCP Tasks: 1 server in error') : vscode.l10n.t('MCP Tasks: {0} servers in error', failing.length) };
    this._item.show();
    this._visible = true;
  }

  private _notify(connection: ServerConnection, message: string): void {
    if (this._notified.has(connection)) return;
    this._notified.add(connection);
    // A local program that failed the same way for the same unchanged entry in an earlier window
    // (e.g. not found): not announced again on every reload; its row and the status bar show it.
    if (connection.definition.transport.type === 'stdio' && this._deps.memory && !this._deps.memory.shouldAnnounce(definitionFingerprint(connection.definition), message)) return;
    this.shown.push({ serverId: connection.id, message });
    this._announced.add(connection);
    const source = connection.definition.source;
    const [showLog, retry, openMcpJson, openSettings] = [vscode.l10n.t('Show Log'), vscode.l10n.t('Retry'), vscode.l10n.t('Open mcp.json'), vscode.l10n.t('Open Settings')];
    const open = source.kind === 'workspace' ? openMcpJson : openSettings;
    void showError(vscode.l10n.t('MCP Tasks: {0}', message), showLog, retry, open).then(async (choice) => {
      if (choice === showLog) this._deps.showLog(connection);
      else if (choice === retry) {
        const now = this._deps.registry.get(connection.id);
        // Pressed on a message that went stale: the server runs again, and a restart would end its tasks.
        if (now?.state.kind === 'running') void showInfo(vscode.l10n.t('MCP Tasks: "{0}" is running again; nothing to retry.', connection.name));
        // The definition may have been replaced meanwhile: retry the one configured now.
        else if (now) await this._deps.registry.restart(connection.id).catch(() => undefined);
        else void showInfo(vscode.l10n.t('MCP Tasks: "{0}" is no longer configured.', connection.name));
      } else if (choice === openMcpJson) await openServerDefinition(connection);
      else if (choice === openSettings) await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpTasks.servers');
    }).then(undefined, failed(vscode.l10n.t('The action on "{0}"', connection.name)));
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
export async function openServerDefinition(connection: ServerConnection): Promise<void> {
  const file = connection.definition.source.file;
  // Bounded (core/config/boundedRead.ts): a file refused or unreadable is opened at its start.
  const read = await readConfigFile(file);
  const position = read.kind === 'text' ? serverPosition(read.text, connection.name) : undefined;
  await openAt(file, position);
}
