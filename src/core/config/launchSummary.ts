/**
 * What the first-start approval shows of a workspace definition: every value that can change
 * what runs or is contacted, so that "Start Server" approves what will actually happen.
 *
 * - The command line and URL, the working folder, every environment value and header value,
 *   quoted (a workspace string cannot break a line of the dialog or hide characters).
 * - Values of secret-looking names (`API_KEY`, `Authorization`) are hidden, only the variables
 *   they expand named; values of code-loading variables (`NODE_OPTIONS`, `PATH`, `PYTHONPATH`,
 *   `RUBYLIB`, `LD_PRELOAD`…) are always shown, whatever their name looks like.
 * - The `envFile` is read now (bounded: boundedRead.ts) and what it sets is shown the same way (its
 *   contents are bound by the approval's fingerprint, trust.ts); one that is refused (a device, a
 *   pipe, over 1 MB) blocks the start instead of being asked about.
 * - The `oauth` block the same way as headers: where the credentials go, every field's value,
 *   those of secret-looking names (`clientSecret`, `privateKey`) hidden, the variables they expand named.
 * - The working folder, set or not: one that is not set is the workspace folder (variables.ts `serverFolder`).
 * - Every `${env:…}` and `${input:…}` used anywhere in the definition, found by walking all of it
 *   (a field added later is not missed), named on lines of their own.
 * - `${workspaceFolder}` (and `${userHome}`) show as the folder they stand for; `${env:…}` and
 *   `${input:…}` stay as written: nothing of the user's environment or inputs is read for this.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { isCredentialHeader, isSecretName } from '../base/redact.js';
import { quoteText } from '../base/quote.js';
import { FileRefusedError, readBoundedText } from './boundedRead.js';
import { parseEnvFile, type OAuthClientCredentials, type ServerDefinition } from './config.js';
import { serverFolder } from './variables.js';

/**
 * What the approval shows and binds besides the definition: the folder `${workspaceFolder}`
 * stands for, and the `envFile` as read now (see {@link readEnvFileForReview}).
 */
export interface LaunchContext {
  readonly workspaceFolder?: string;
  readonly userHome?: string;
  readonly envFile?: EnvFileSnapshot;
}

/** A definition's `envFile` as read for its approval. */
export interface EnvFileSnapshot {
  /** The path, with `${workspaceFolder}` and `${userHome}` resolved. */
  readonly path: string;
  /** Its text, when it could be read. */
  readonly text?: string;
  /** Why it was not read (missing, unreadable, or a path that needs `${env:…}`/`${input:…}`). */
  readonly problem?: string;
  /** Set when it was refused for what it is (boundedRead.ts): the sentence naming the file and the cause. The start is blocked with it. */
  readonly refused?: string;
}

/** What starting a definition would run or contact. */
export interface LaunchSummary {
  /** `command` for stdio, `url` for http. */
  readonly kind: 'command' | 'url';
  /** The command line (command and args, each quoted unless plain) or the URL (quoted). */
  readonly text: string;
  /**
   * Every further value that changes what runs or is contacted, workspace text quoted: working
   * folder, environment values, the environment file and what it sets, header values, the issuer
   * client credentials are sent to.
   */
  readonly details: readonly string[];
}

/** Environment variables that make a program load other code, or find other programs. */
const CODE_LOADING = new Set(['PATH', 'PATHEXT', 'COMSPEC', 'BASH_ENV', 'ENV', 'ZDOTDIR', 'PROMPT_COMMAND', 'PS4', 'SHELLOPTS', 'BASHOPTS', 'ELECTRON_RUN_AS_NODE', 'CLASSPATH', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'GEM_HOME', 'GEM_PATH', 'BUNDLE_GEMFILE', 'PHPRC', 'PHP_INI_SCAN_DIR', 'LUA_PATH', 'LUA_CPATH', 'LUA_INIT', 'DOTNET_STARTUP_HOOKS', 'CORECLR_PROFILER_PATH', 'PSMODULEPATH', 'SSH_ASKPASS', 'RUSTC_WRAPPER', 'GOFLAGS', 'VIRTUAL_ENV', 'CONDA_PREFIX', 'DENO_DIR']);
/** Families of them: interpreters' and package managers' configuration, the dynamic linker, git's helpers. */
const CODE_LOADING_PREFIX = /^(NODE_|NPM_CONFIG_|YARN_|PNPM_|PYTHON|PIP_|UV_|RUBY|PERL|JAVA_|LD_|DYLD_|GIT_)/i;

/** Whether an environment variable changes which code a program loads (its value is always shown). */
export function isCodeLoadingVariable(name: string): boolean {
  return CODE_LOADING.has(name.toUpperCase()) || CODE_LOADING_PREFIX.test(name);
}

/** Variables (`${env:X}`, `${input:y}`) used in a string, in order, without duplicates. */
export function variablesIn(s: string): string[] {
  return [...new Set([...s.matchAll(/\$\{[^}]+\}/g)].map((m) => m[0]))];
}

/** `${workspaceFolder}`, `${workspaceFolderBasename}` and `${userHome}` resolved (for display and for reading the envFile); other variables stay. */
export function withFolder(s: string, context: Pick<LaunchContext, 'workspaceFolder' | 'userHome'>): string {
  return s.replace(/\$\{(workspaceFolder|workspaceFolderBasename|userHome)\}/g, (whole, name: string) => {
    if (name === 'userHome') return context.userHome ?? whole;
    const folder = context.workspaceFolder;
    if (folder === undefined) return whole;
    return name === 'workspaceFolder' ? folder : (folder.split(/[\\/]/).filter(Boolean).pop() ?? folder);
  });
}

/**
 * Reads a definition's `envFile` for its approval, its path resolved as far as it can be without
 * the user's environment or inputs (`${workspaceFolder}`, `${userHome}`; a relative path from the
 * server's folder, as at its start). Bounded (boundedRead.ts). Undefined when it has none.
 */
export async function readEnvFileForReview(
  def: Pick<ServerDefinition, 'transport' | 'source'>,
  context: Pick<LaunchContext, 'workspaceFolder' | 'userHome'>,
  readText: (path: string) => Promise<string> = readBoundedText,
): Promise<EnvFileSnapshot | undefined> {
  if (def.transport.type !== 'stdio' || def.transport.envFile === undefined) return undefined;
  const written = withFolder(def.transport.envFile, context);
  const unresolved = variablesIn(written);
  if (unresolved.length) return { path: written, problem: `read only when it starts, its contents not bound by this approval: its path uses ${unresolved.join(', ')}` };
  const path = resolvePath(serverFolder(def, context.userHome), written);
  try {
    return { path, text: await readText(path) };
  } catch (e) {
    if (e instanceof FileRefusedError) return { path, refused: `the envFile ${e.message}` };
    return { path, problem: `cannot be read now: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Summarises what a definition would run or contact, for the approval. */
export function describeLaunch(def: Pick<ServerDefinition, 'transport' | 'source'>, context: LaunchContext = {}): LaunchSummary {
  const t = def.transport;
  const shown = (s: string) => withFolder(s, context);
  if (t.type === 'stdio') {
    const details: string[] = [workingFolderLine(def, t.cwd, context)];
    details.push(...envLines('environment', Object.entries(t.env), shown));
    if (t.envFile !== undefined) {
      const f = context.envFile;
      if (!f) details.push(`environment file: ${quoteText(shown(t.envFile))}`);
      else if (f.text === undefined) details.push(`environment file: ${quoteText(f.path)} (${f.refused ?? f.problem ?? 'not read'})`);
      else {
        const entries = Object.entries(parseEnvFile(f.text));
        details.push(`environment file: ${quoteText(f.path)}${entries.length ? '' : ' (sets nothing)'}`);
        // Its values are literal (no variables are expanded in an envFile).
        details.push(...envLines('set by the environment file', entries, (s) => s));
      }
    }
    details.push(...variableLines(t));
    return { kind: 'command', text: [t.command, ...t.args].map((a) => quoteArg(shown(a))).join(' '), details };
  }
  const details: string[] = [];
  const headers = Object.entries(t.headers).map(([k, v]) => (isCredentialHeader(k) ? hidden(k, v) : `${quoteName(k)}=${quoteText(shown(v))}`));
  if (headers.length) details.push(`headers: ${headers.join(', ')}`);
  if (t.oauth) details.push(oauthLine(t.oauth, shown));
  details.push(...variableLines(t));
  return { kind: 'url', text: quoteText(shown(t.url)), details };
}

/** The folder the program runs in: the `cwd` as written (a relative one from the server's folder), or the server's folder when none is set. */
function workingFolderLine(def: Pick<ServerDefinition, 'source'>, cwd: string | undefined, context: LaunchContext): string {
  const folder = serverFolder(def, context.userHome);
  if (cwd === undefined) return `working folder: ${quoteText(folder)} (${def.source.kind === 'workspace' ? 'the workspace folder' : 'your home folder'}: no "cwd" is set)`;
  const written = withFolder(cwd, context);
  return `working folder: ${quoteText(isAbsolute(written) || variablesIn(written).length ? written : resolvePath(folder, written))}`;
}

/**
 * The `oauth` block as headers are shown: the issuer the credentials go to, then every other
 * field of the block, whatever its name (a field added later is shown too); values of
 * secret-looking names (`clientSecret`, `privateKey`) hidden, the variables they expand named.
 */
function oauthLine(o: OAuthClientCredentials, shown: (s: string) => string): string {
  const fields = Object.entries(o as Readonly<Record<string, unknown>>)
    .filter(([k, v]) => k !== 'issuer' && typeof v === 'string')
    .map(([k, v]) => (isSecretName(k) ? hidden(k, v as string) : `${quoteName(k)}=${quoteText(shown(v as string))}`));
  return `client credentials, sent only to ${o.issuer === undefined ? 'the issuer the server names' : quoteText(shown(o.issuer))}: ${fields.join(', ')}`;
}

/**
 * Every `${env:…}` and `${input:…}` the definition uses, wherever it is (command, args, env,
 * envFile path, cwd, URL, headers, the `oauth` block, a field added later): found by walking every
 * string of the transport, not by a list of fields. Their values are never read for this.
 */
export function variablesUsed(value: unknown): { readonly env: string[]; readonly inputs: string[] } {
  const env = new Set<string>();
  const inputs = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(/\$\{(env|input):([^}]*)\}/g)) (m[1] === 'env' ? env : inputs).add(m[2]!);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return { env: [...env], inputs: [...inputs] };
}

function variableLines(transport: unknown): string[] {
  const { env, inputs } = variablesUsed(transport);
  return [
    ...(env.length ? [`variables it reads from your environment: ${env.map(quoteName).join(', ')}`] : []),
    ...(inputs.length ? [`inputs it asks you for: ${inputs.map(quoteName).join(', ')}`] : []),
  ];
}

/**
 * Lines for environment entries: code-loading variables first, on their own line (they decide
 * which code runs), then the rest; values of secret-looking names hidden.
 */
function envLines(label: string, entries: ReadonlyArray<readonly [string, string | null]>, shown: (s: string) => string): string[] {
  const describe = ([k, v]: readonly [string, string | null]) => {
    if (v === null) return `${quoteName(k)} unset`;
    if (isSecretName(k) && !isCodeLoadingVariable(k)) return hidden(k, v);
    return `${quoteName(k)}=${quoteText(shown(v))}`;
  };
  const loading = entries.filter(([k]) => isCodeLoadingVariable(k));
  const rest = entries.filter(([k]) => !isCodeLoadingVariable(k));
  return [
    ...(loading.length ? [`${label}, which changes the code that runs: ${loading.map(describe).join(', ')}`] : []),
    ...(rest.length ? [`${label}: ${rest.map(describe).join(', ')}`] : []),
  ];
}

/** A secret-looking entry: its name and the variables it expands, never its literal text. */
function hidden(name: string, value: string): string {
  const vars = variablesIn(value);
  return `${quoteName(name)}=(hidden${vars.length ? `, from ${vars.join(', ')}` : ''})`;
}

/** A name as written when it is plain, else quoted. */
function quoteName(name: string): string {
  return /^[\w.-]+$/.test(name) ? name : quoteText(name);
}

/** A command-line argument as written when it is plain, else quoted. */
function quoteArg(a: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(a) ? a : quoteText(a);
}
