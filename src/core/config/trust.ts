/**
 * The start gate: whether a server definition may start now, must first be approved by the
 * user, or may not start at all. Pure logic (no `vscode`); the UI asks and remembers.
 *
 * - A user-level definition (the user's own settings) starts as before — except, in an untrusted
 *   workspace, a stdio definition that refers to the workspace folder anywhere (`${workspaceFolder}`
 *   in its command, args, cwd, envFile or an environment value): that would let the folder choose
 *   the code that runs.
 * - A workspace definition (`.vscode/mcp.json`, stdio or http) never starts in an untrusted
 *   workspace: nothing is spawned, no request is sent, no `${env:…}` is expanded for it.
 * - In a trusted workspace its first start asks the user (every value that changes what runs
 *   shown: launchSummary.ts); the answer is remembered per {@link approvalFingerprint}, so a
 *   changed definition, or a changed envFile, asks again.
 *
 * Every connect of a connection, not only the first start, passes through the gate (gate.ts).
 */
import { quoteText } from '../base/quote.js';
import { definitionFingerprint, parseMcpConfig, type ConfigProblem, type ParsedConfig, type ServerDefinition } from './config.js';
import { describeLaunch, type EnvFileSnapshot, type LaunchContext, type LaunchSummary } from './launchSummary.js';

export { describeLaunch, readEnvFileForReview, variablesUsed, type EnvFileSnapshot, type LaunchContext, type LaunchSummary } from './launchSummary.js';

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

const UNTRUSTED_WORKSPACE_REASON =
  'this workspace is not trusted: servers defined by the workspace are not started (nothing is run or contacted) until you trust it';
const UNTRUSTED_USER_REASON =
  'this workspace is not trusted and this server runs something from the workspace folder (${workspaceFolder}); trust the workspace to start it';

/**
 * Decides whether `def` may start now. The fingerprint of an approval covers the definition and
 * the contents of its `envFile` as given in `context` (none given: never equal to an approval of
 * a definition that has one).
 */
export function decideStart(def: ServerDefinition, state: GateState, context: LaunchContext = {}): StartDecision {
  if (def.source.kind === 'user') {
    if (!state.workspaceTrusted && usesWorkspaceFolderToRun(def)) return { kind: 'block', reason: UNTRUSTED_USER_REASON, untrusted: true };
    return { kind: 'start' };
  }
  if (!state.workspaceTrusted) return { kind: 'block', reason: UNTRUSTED_WORKSPACE_REASON, untrusted: true };
  // A device, a pipe or an oversized file as envFile (boundedRead.ts): the start could only fail, so nothing is asked.
  if (context.envFile?.refused) return { kind: 'block', reason: `${context.envFile.refused}; ${quoteText(def.name)} from ${def.source.file} is not started`, untrusted: false };
  const fingerprint = approvalFingerprint(def, context.envFile);
  if (state.approved(fingerprint) || state.firstStart === 'allow') return { kind: 'start' };
  return { kind: 'ask', fingerprint, launch: describeLaunch(def, context) };
}

/** The fingerprint an approval of `def` is kept under: the definition, and its envFile's contents when it has one. */
export function approvalFingerprint(def: ServerDefinition, envFile: EnvFileSnapshot | undefined): string {
  if (def.transport.type !== 'stdio' || def.transport.envFile === undefined) return definitionFingerprint(def);
  return definitionFingerprint(def, envFile?.text ?? null);
}

/** The reason shown when the user declined a first start. */
export function declinedReason(def: ServerDefinition): string {
  return `you did not approve starting ${quoteText(def.name)} from ${def.source.file}; start it again to be asked again`;
}

/**
 * The reason a running server stops when the gate no longer allows it: its approval was revoked (or
 * no longer matches), or it ran without one under firstStart "allow" and the user set "ask".
 */
export function revokedReason(def: ServerDefinition): string {
  return `the approval to start ${quoteText(def.name)} from ${def.source.file} was revoked or no longer matches it (or it ran without one while mcpTasks.workspaceServers.firstStart was "allow"); start it again to be asked again`;
}

const WORKSPACE_FOLDER = /\$\{workspaceFolder(?:Basename)?\}/;

/**
 * Whether a stdio definition refers to the workspace folder anywhere — command, args, cwd,
 * envFile or an environment value: `PYTHONPATH=${workspaceFolder}/src` or `NODE_OPTIONS=--require
 * ${workspaceFolder}/x.js` runs the folder's code as surely as a command in it does.
 */
export function usesWorkspaceFolderToRun(def: Pick<ServerDefinition, 'transport'>): boolean {
  const t = def.transport;
  if (t.type !== 'stdio') return false;
  const env = Object.values(t.env).filter((v): v is string => v !== null);
  return [t.command, ...t.args, t.cwd ?? '', t.envFile ?? '', ...env].some((s) => WORKSPACE_FOLDER.test(s));
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
 * settings only: a value a workspace or folder `settings.json` (or a `.code-workspace`)
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
