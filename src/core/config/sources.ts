/**
 * Which sources of server definitions this extension connects to (`mcpTasks.serverSources`), and
 * when VS Code's own MCP support could start the same servers too.
 *
 * The rule: this extension reads `.vscode/mcp.json` of each workspace folder and the user
 * setting `mcpTasks.servers`. VS Code's built-in MCP client (chat) reads the same
 * `.vscode/mcp.json` (and its own user `mcp.json`, never `mcpTasks.servers`). So a stdio server
 * in `.vscode/mcp.json` can run twice, one process per host, when VS Code's MCP support is on.
 * `"userSettings"` makes this extension ignore `.vscode/mcp.json` (define its servers in
 * `mcpTasks.servers`); `"workspaceFile"` ignores the user setting.
 */
import type { ServerDefinition } from './config.js';

export const SERVER_SOURCES = ['both', 'workspaceFile', 'userSettings'] as const;
export type ServerSources = (typeof SERVER_SOURCES)[number];

/** The user's value of `mcpTasks.serverSources` (an invalid value reads as the default, `both`). */
export function parseServerSources(value: unknown): ServerSources {
  // One of three names: checked as such (zod, which the other settings use, is not evaluated at activation).
  return SERVER_SOURCES.find((s) => s === value) ?? 'both';
}

export function readsWorkspaceFile(s: ServerSources): boolean {
  return s !== 'userSettings';
}

export function readsUserSettings(s: ServerSources): boolean {
  return s !== 'workspaceFile';
}

/** VS Code's own MCP settings, as read from the configuration (`undefined` = not present in this VS Code). */
export interface VsCodeMcpSettings {
  /** `chat.mcp.enabled` (older VS Code). */
  readonly enabled?: unknown;
  /** `chat.mcp.access` (`"none"` turns MCP off in newer VS Code). */
  readonly access?: unknown;
  /** `chat.disableAIFeatures` (true turns chat off). */
  readonly aiDisabled?: unknown;
}

/** Whether VS Code's own MCP support is present and not turned off. */
export function vsCodeMcpActive(s: VsCodeMcpSettings): boolean {
  if (s.enabled === undefined && s.access === undefined) return false; // this VS Code has no MCP support
  if (s.enabled === false || s.access === 'none' || s.aiDisabled === true) return false;
  return true;
}

/**
 * The workspace stdio servers both hosts could start (this extension, through its sources, and
 * VS Code, whose MCP support is active): the one-time notice names them.
 */
export function serversBothHostsMayStart(defs: readonly ServerDefinition[], sources: ServerSources, vsCode: VsCodeMcpSettings): ServerDefinition[] {
  if (!readsWorkspaceFile(sources) || !vsCodeMcpActive(vsCode)) return [];
  return defs.filter((d) => d.source.kind === 'workspace' && d.transport.type === 'stdio');
}
