/**
 * Two hosts, one file: VS Code's own MCP support (chat) reads `.vscode/mcp.json` too. When it is
 * on and this extension also reads that file (`mcpTasks.serverSources`), a stdio server there may
 * run twice, one process per host. Said once (per user), with the way to choose.
 */
import * as vscode from 'vscode';
import type { ServerDefinition } from '../../core/config/config.js';
import { serversBothHostsMayStart, type VsCodeMcpSettings } from '../../core/config/sources.js';
import { failed, showInfo } from '../adapters/notify.js';
import { SERVER_SOURCES_SETTING, serverSourcesSetting } from './serverConfig.js';

const NOTICE_KEY = 'mcpTasks.twoHostsNoticeShown';
/** The notice's button (English; shown through `vscode.l10n.t('Choose Sources…')`). */
export const CHOOSE = 'Choose Sources…';

/** VS Code's own MCP settings as this VS Code knows them (undefined when it has no such setting). */
export function vsCodeMcpSettings(): VsCodeMcpSettings {
  const chat = vscode.workspace.getConfiguration('chat');
  const known = (key: string) => {
    const i = chat.inspect<unknown>(key);
    return i === undefined || (i.defaultValue === undefined && i.globalValue === undefined && i.workspaceValue === undefined) ? undefined : chat.get<unknown>(key);
  };
  return { enabled: known('mcp.enabled'), access: known('mcp.access'), aiDisabled: known('disableAIFeatures') };
}

/** Shows the notice once, the first time a workspace stdio server could be started by both hosts. Returns whether it showed. */
export function maybeShowTwoHostsNotice(state: vscode.Memento, defs: readonly ServerDefinition[]): boolean {
  if (state.get<boolean>(NOTICE_KEY)) return false;
  const both = serversBothHostsMayStart(defs, serverSourcesSetting(), vsCodeMcpSettings());
  if (both.length === 0) return false;
  void state.update(NOTICE_KEY, true);
  const names = both.map((d) => `"${d.name}"`).join(', ');
  const choose = vscode.l10n.t('Choose Sources…');
  void showInfo(
    vscode.l10n.t('MCP Tasks connects to the servers in .vscode/mcp.json ({0}). VS Code\'s own MCP support reads that file too: if you also start them from chat, each runs twice (one process per host). To keep them apart, define this extension\'s servers in "mcpTasks.servers" and set "mcpTasks.serverSources" to "userSettings".', names),
    choose,
  )
    .then(async (c) => {
      if (c === choose) await vscode.commands.executeCommand('workbench.action.openSettings', `mcpTasks.${SERVER_SOURCES_SETTING}`);
    })
    .then(undefined, failed(choose));
  return true;
}
