/**
 * The start gate: whether a server definition may start now, must first be approved by the
 * user, or may not start at all. Pure logic (no `vscode`); the UI asks and remembers.
 *
 * - A user-level definition (the user's own settings) starts as before — except, in an untrusted
 *   workspace, a stdio definition that runs something from the workspace (`${workspaceFolder}` in
 *   its command, args, cwd or envFile): that would let the folder choose the code that runs.
 * - A workspace definition (`.vscode/mcp.json`, stdio or http) never starts in an untrusted
 *   workspace: nothing is spawned, no request is sent, no `${env:…}` is expanded for it.
 * - In a trusted workspace its first start asks the user (command line or URL shown); the answer
 *   is remembered per {@link definitionFingerprint}, so a changed definition asks again.
 */
import { definitionFingerprint, parseMcpConfig, type ConfigProblem, type ParsedConfig, type ServerDefinition } from './config.js';

/** What decides a start besides the definition. */
export interface GateState {
  /** `vscode.workspace.isTrusted`. */
  readonly workspaceTrusted: boolean;
  /** Whether the user already approved the first start of this fingerprint. */
  readonly approved: (fingerprint: string) => boolean;
  /**
   * The user's own setting (never a workspace's): `'ask'` asks before a workspace definition's
   * first start in a trusted workspace; `'allow'` starts them without asking (trusted only).
   */
  readonly firstStart: 'ask' | 'allow';
}

export type StartDecision =
  | { readonly kind: 'start' }
  | { readonly kind: 'ask'; readonly fingerprint: string; readonly launch: LaunchSummary }
  | { readonly kind: 'block'; readonly reason: string; readonly untrusted: boolean };

/** What starting a definition would run or contact, from the definition as written (no variable expanded). */
export interface LaunchSummary {
  /** `command` for stdio, `url` for http. */
  readonly kind: 'command' | 'url';
  /** The command line (command and args) or the URL, as written in the file. */
  readonly text: string;
  /** Further lines worth seeing before approving: cwd, env names, envFile, header names and the variables they use. */
  readonly details: readonly string[];
}

const UNTRUSTED_WORKSPACE_REASON =
  'this workspace is not trusted: servers defined by the workspace are not started (nothing is run or contacted) until you trust it';
const UNTRUSTED_USER_REASON =
  'this workspace is not trusted and this server runs something from the workspace folder (${workspaceFolder}); trust the workspace to start it';

/** Decides whether `def` may start now. */
export function decideStart(def: ServerDefinition, state: GateState): StartDecision {
  if (def.source.kind === 'user') {
    if (!state.workspaceTrusted && usesWorkspaceFolderToRun(def)) return { kind: 'block', reason: UNTRUSTED_USER_REASON, untrusted: true };
    return { kind: 'start' };
  }
  if (!state.workspaceTrusted) return { kind: 'block', reason: UNTRUSTED_WORKSPACE_REASON, untrusted: true };
  const fingerprint = definitionFingerprint(def);
  if (state.approved(fingerprint) || state.firstStart === 'allow') return { kind: 'start' };
  return { kind: 'ask', fingerprint, launch: describeLaunch(def) };
}

/** The reason shown when the user declined a first start. */
export function declinedReason(def: ServerDefinition): string {
  return `you did not approve starting "${def.name}" from ${def.source.file}; start it again to be asked again`;
}

const WORKSPACE_FOLDER = /\$\{workspaceFolder(?:Basename)?\}/;

/** Whether a stdio definition's command, args, cwd or envFile refer to the workspace folder. */
export function usesWorkspaceFolderToRun(def: Pick<ServerDefinition, 'transport'>): boolean {
  const t = def.transport;
  if (t.type !== 'stdio') return false;
  return [t.command, ...t.args, t.cwd ?? '', t.envFile ?? ''].some((s) => WORKSPACE_FOLDER.test(s));
}

/** Variables (`${env:X}`, `${input:y}`) used in a string, in order, without duplicates. */
function variablesIn(s: string): string[] {
  return [...new Set([...s.matchAll(/\$\{[^}]+\}/g)].map((m) => m[0]))];
}

/**
 * Summarises what a definition would run or contact, for the approval prompt. Literal values of
 * env entries and headers are never shown (they may be tokens); only their names and the
 * variables they would expand.
 */
export function describeLaunch(def: Pick<ServerDefinition, 'transport'>): LaunchSummary {
  const t = def.transport;
  const named = (entries: Array<[string, string | null]>) =>
    entries.map(([k, v]) => {
      const vars = v === null ? [] : variablesIn(v);
      return vars.length ? `${k} (from ${vars.join(', ')})` : k;
    });
  if (t.type === 'stdio') {
    const details: string[] = [];
    if (t.cwd) details.push(`working folder: ${t.cwd}`);
    const env = named(Object.entries(t.env));
    if (env.length) details.push(`environment: ${env.join(', ')}`);
    if (t.envFile) details.push(`environment file: ${t.envFile}`);
    return { kind: 'command', text: [t.command, ...t.args].map(quoteArg).join(' '), details };
  }
  const headers = named(Object.entries(t.headers));
  return { kind: 'url', text: t.url, details: headers.length ? [`headers: ${headers.join(', ')}`] : [] };
}

function quoteArg(a: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(a) ? a : JSON.stringify(a);
}

/** What `WorkspaceConfiguration.inspect()` reports of one setting (the scopes that matter here). */
export interface InspectedSetting {
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
}

/** The source of servers from the `mcpTasks.servers` setting. */
export const USER_SETTINGS_FILE = 'Settings (mcpTasks.servers)';

/**
 * Servers from the settings `mcpTasks.servers` / `mcpTasks.inputs`, taken from the user's own
 * settings only (finding 1): a value a workspace or folder `settings.json` (or a `.code-workspace`)
 * sets is never used — merged with `get()` it would pass as a *user* server and skip every gate —
 * and is reported as ignored.
 */
export function serversFromUserSettings(servers: InspectedSetting | undefined, inputs: InspectedSetting | undefined): ParsedConfig {
  const problems: ConfigProblem[] = [];
  for (const [key, i] of [
    ['servers', servers],
    ['inputs', inputs],
  ] as const) {
    if (i?.workspaceValue === undefined && i?.workspaceFolderValue === undefined) continue;
    problems.push({
      file: `Workspace settings (mcpTasks.${key})`,
      key: '',
      message: 'ignored: only your user settings may define MCP servers and inputs; a workspace defines servers in .vscode/mcp.json, which asks before they run',
    });
  }
  const value = servers?.globalValue;
  if (value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0)) return { servers: [], problems };
  const parsed = parseMcpConfig({ kind: 'user', file: USER_SETTINGS_FILE }, { servers: value, inputs: inputs?.globalValue ?? [] });
  return { servers: parsed.servers, problems: [...parsed.problems, ...problems] };
}
