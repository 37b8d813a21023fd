/** How a server shows in the Tasks view and in server pickers: its state in a few words, its icon, its tooltip. */
import * as vscode from 'vscode';
import { escapeMarkdown, markdownCodeSpan } from '../../core/base/escape.js';
import { describeCommandLine } from '../../core/base/redact.js';
import type { ServerConnection } from '../../core/connection/connectionPort.js';
import { describeState, type ConnectionState } from '../../core/connection/connectionState.js';
import { emptyTreeId } from '../../core/view/rowIds.js';
import { untrustedMarkdown } from '../documents/markdown.js';
import { Commands } from '../commands/commandIds.js';

/** A server's state in a few words (tree rows, server pickers). */
export function shortState(s: ConnectionState): string {
  switch (s.kind) {
    case 'stopped':
      return vscode.l10n.t('stopped');
    case 'starting':
      return vscode.l10n.t('starting…');
    case 'running':
      return vscode.l10n.t('running');
    case 'error':
      return s.retryAt ? vscode.l10n.t('error, retrying') : vscode.l10n.t('error');
    case 'blocked':
      return vscode.l10n.t('not started');
    case 'needs-sign-in':
      return vscode.l10n.t('sign in required');
    case 'credentials-rejected':
      return vscode.l10n.t('credentials refused');
  }
}

export function serverIcon(s: ConnectionState): vscode.ThemeIcon {
  switch (s.kind) {
    case 'stopped':
      return new vscode.ThemeIcon('debug-stop', new vscode.ThemeColor('disabledForeground'));
    case 'starting':
      return new vscode.ThemeIcon('loading~spin');
    case 'running':
      return new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('testing.iconPassed'));
    case 'error':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'blocked':
      return new vscode.ThemeIcon('shield', new vscode.ThemeColor('list.warningForeground'));
    case 'needs-sign-in':
      return new vscode.ThemeIcon('account', new vscode.ThemeColor('list.warningForeground'));
    case 'credentials-rejected':
      return new vscode.ThemeIcon('key', new vscode.ThemeColor('errorForeground'));
  }
}

export function serverTooltip(c: Pick<ServerConnection, 'name' | 'definition' | 'state' | 'continuity'>): vscode.MarkdownString {
  const md = untrustedMarkdown();
  md.appendMarkdown(`**${escapeMarkdown(c.name)}** — ${escapeMarkdown(describeState(c.state))}\n\n`);
  if (c.state.kind === 'running' && c.state.protocolVersion) {
    // The revision the connection negotiated (`server/discover`, else `initialize`), and whether it took up a session of before.
    const resumed = c.continuity.kind === 'resumed' ? ` ${vscode.l10n.t('(session resumed after a reload)')}` : '';
    md.appendMarkdown(`${vscode.l10n.t('MCP {0}', escapeMarkdown(c.state.protocolVersion))}${resumed}\n\n`);
  }
  const t = c.definition.transport;
  // A code span shows its text verbatim (nothing in it is parsed, nothing needs escaping).
  // Values of secret-looking flags (`--token=…`) are hidden here as in the log (screens get shared).
  md.appendMarkdown(t.type === 'stdio' ? `stdio: ${markdownCodeSpan(describeCommandLine(t.command, t.args))}\n\n` : `http: ${markdownCodeSpan(t.url)}\n\n`);
  md.appendMarkdown(vscode.l10n.t('from {0}', escapeMarkdown(c.definition.source.file)));
  return md;
}

/** The row of a server's empty Sent or Received group: what will appear there and, while it runs, how to start. */
export function emptyGroupItem(serverId: string, direction: 'sent' | 'received', running: boolean): vscode.TreeItem {
  const item = new vscode.TreeItem(direction === 'sent' ? vscode.l10n.t('No task yet') : vscode.l10n.t('No request yet'), vscode.TreeItemCollapsibleState.None);
  item.id = emptyTreeId(serverId, direction);
  item.iconPath = new vscode.ThemeIcon(direction === 'sent' ? 'play' : 'inbox', new vscode.ThemeColor('disabledForeground'));
  if (direction === 'sent') {
    item.description = running ? vscode.l10n.t('Run Tool…') : '';
    item.tooltip = vscode.l10n.t('Tool calls you send to this server appear here. Click to run a tool.');
    if (running) item.command = { command: Commands.runTool, title: vscode.l10n.t('Run Tool…'), arguments: [{ kind: 'server', serverId }] };
  } else {
    item.tooltip = vscode.l10n.t('Sampling and elicitation requests this server sends you appear here.');
  }
  item.contextValue = 'mcpEmpty';
  return item;
}
