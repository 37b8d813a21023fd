/**
 * Server definitions in VS Code's `.vscode/mcp.json` format, parsed and validated with zod.
 *
 * A broken file or entry yields one readable {@link ConfigProblem} naming the file and the key;
 * every valid entry is still returned, so one bad server never stops the others.
 */
import { createHash } from 'node:crypto';
import { applyEdits, modify, parse as parseJsonc, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';

/** Where a server definition came from. */
export type ConfigSource =
  | { readonly kind: 'workspace'; readonly file: string; readonly folder: string }
  | { readonly kind: 'user'; readonly file: string };

const stringMap = z.record(z.string(), z.string());
const envMap = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

const stdioSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'must be a non-empty string'),
    args: z.array(z.string()).optional(),
    env: envMap.optional(),
    envFile: z.string().optional(),
    cwd: z.string().optional(),
  })
  .passthrough();

const httpSchema = z
  .object({
    type: z.enum(['http', 'sse']).optional(),
    url: z.string().min(1, 'must be a non-empty string'),
    headers: stringMap.optional(),
    oauth: z.unknown().optional(),
  })
  .passthrough();

const nonEmpty = z.string().min(1, 'must be a non-empty string');
/** JOSE algorithms a private key can sign a client assertion with (RFC 7518 / 8037). */
const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
const oauthSchema = z
  .object({
    clientCredentials: z.object({ clientId: nonEmpty, clientSecret: nonEmpty }).strict().optional(),
    privateKeyJwt: z.object({ clientId: nonEmpty, privateKey: nonEmpty, algorithm: z.enum(JWT_ALGORITHMS) }).strict().optional(),
    issuer: z.url({ protocol: /^https?$/, error: 'must be the http(s) URL of the authorization server that holds this client (the credentials are sent to no other)' }),
    scope: z.string().optional(),
  })
  .strict()
  .refine((o) => (o.clientCredentials === undefined) !== (o.privateKeyJwt === undefined), 'needs exactly one of "clientCredentials" or "privateKeyJwt"');

const inputSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('promptString'),
    id: z.string().min(1),
    description: z.string().optional(),
    default: z.string().optional(),
    password: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('pickString'),
    id: z.string().min(1),
    description: z.string().optional(),
    options: z.array(z.union([z.string(), z.object({ label: z.string().optional(), value: z.string() })])).min(1),
    default: z.string().optional(),
  }),
]);

/** An `inputs` entry: a value asked of the user when a server using `${input:id}` starts. */
export type InputDefinition = z.infer<typeof inputSchema>;

/** How to reach a server, before variable substitution. */
export type TransportDefinition =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string | null>>;
      readonly envFile?: string;
      /**
       * The envFile's contents as the start gate read and approved them (config/gate.ts
       * `withApprovedEnvFile`); set on a resolved transport only, never from a configuration file.
       */
      readonly envFileText?: string;
      readonly cwd?: string;
    }
  | {
      readonly type: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      /** `"type": "sse"`: the legacy HTTP+SSE transport (2024-11-05), not Streamable HTTP. */
      readonly legacySse?: true;
      /** `"oauth"`: client credentials (no browser) instead of the authorization code sign-in. */
      readonly oauth?: OAuthClientCredentials;
    };

/**
 * Client credentials of the `oauth-client-credentials` extension, from a server's `"oauth"`
 * block: a client secret, or a private key that signs a JWT client assertion (RFC 7523).
 */
export type OAuthClientCredentials = (
  | { readonly clientId: string; readonly clientSecret: string }
  | { readonly clientId: string; readonly privateKey: string; readonly algorithm: string }
) & {
  readonly scope?: string;
  /** The authorization server's issuer URL: the only one the credentials are sent to (the MCP server does not choose). */
  readonly issuer?: string;
};

/** One server from a config file or the user setting. */
export interface ServerDefinition {
  /** Unique across all sources, never containing `/` (see {@link assignUniqueIds}): the name, or `<folder>:<name>` for a workspace server whose name clashes. */
  readonly id: string;
  /** The key in the `servers` map. */
  readonly name: string;
  readonly source: ConfigSource;
  readonly transport: TransportDefinition;
  /** The `inputs` declared next to this server (resolved on start when referenced). */
  readonly inputs: readonly InputDefinition[];
}

/**
 * Stable identity of where a definition lives: its source file and its name. Two servers called
 * `demo` in different files (user settings, two workspace folders, two workspaces) never share it.
 * Use it to key what belongs to a server across edits of its definition (task history).
 */
export function definitionKey(def: Pick<ServerDefinition, 'name' | 'source'>): string {
  return `${def.source.kind}:${def.source.file}#${def.name}`;
}

/**
 * {@link definitionKey} plus a hash of the definition's content (transport and inputs, before
 * variable substitution): changes whenever what would run or be contacted changes. Use it to key
 * what the user approved (first-start approval, "always allow" consent).
 *
 * `envFileText`: the contents of the definition's `envFile` as read when it was approved (`null`:
 * it could not be read). They are part of what runs, so an edit of that file (a `git pull` that
 * adds `NODE_OPTIONS`) changes the fingerprint as an edit of mcp.json does.
 */
export function definitionFingerprint(def: Pick<ServerDefinition, 'name' | 'source' | 'transport' | 'inputs'>, envFileText?: string | null): string {
  const content = canonicalJson({ transport: def.transport, inputs: def.inputs, envFileText });
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 16);
  return `${definitionKey(def)}@${hash}`;
}

/** JSON with object keys sorted, so equal content always hashes equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A problem found in a config file: names the file, the key and what is wrong. */
export interface ConfigProblem {
  readonly file: string;
  /** Dotted path of the offending key, e.g. `servers.demo.command`; empty for the whole file. */
  readonly key: string;
  readonly message: string;
  /** Where in the file (1-based), when known: "Open File" goes there. */
  readonly position?: { readonly line: number; readonly column: number };
  /** The file is not valid JSON at all (e.g. half-typed): none of its servers could be read. */
  readonly unparsable?: true;
  /**
   * A key of the file's top level that mcp.json does not have (a server put beside `"servers"`
   * instead of inside it): ignored, and said once per key, wherever later edits move its line.
   */
  readonly misplaced?: true;
}

/** The keys an mcp.json has at its top level; any other is ignored (and reported). */
const TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(['servers', 'inputs', '$schema']);

export interface ParsedConfig {
  readonly servers: ServerDefinition[];
  readonly problems: ConfigProblem[];
}

/** Formats a problem as one line for logs and notifications. */
export function formatProblem(p: ConfigProblem): string {
  return p.key ? `${p.file}: "${p.key}": ${p.message}` : `${p.file}: ${p.message}`;
}

function zodPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  return [prefix, ...path.map(String)].filter(Boolean).join('.');
}

function firstIssue(err: z.ZodError, prefix: string): { key: string; message: string } {
  const issue = err.issues[0];
  const key = zodPath(prefix, issue?.path ?? []);
  let message = issue?.message ?? 'invalid value';
  if (issue?.code === 'invalid_type') {
    message = issue.message.replace(/^Invalid input: /, '');
  }
  return { key, message };
}

/**
 * Parses the text of an `mcp.json` (JSONC: comments and trailing commas allowed), or the
 * value of the user setting (pass an object as `value`).
 */
export function parseMcpConfig(source: ConfigSource, text: string | unknown): ParsedConfig {
  const file = source.file;
  const problems: ConfigProblem[] = [];
  const servers: ServerDefinition[] = [];

  let root: unknown;
  if (typeof text === 'string') {
    if (text.trim() === '') return { servers, problems };
    const errors: ParseError[] = [];
    root = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length > 0) {
      const e = errors[0]!;
      const { line, column } = offsetToLineColumn(text, e.offset);
      problems.push({ file, key: '', message: `not valid JSON: ${printParseErrorCode(e.error)} at line ${line}, column ${column}`, position: { line, column }, unparsable: true });
      return { servers, problems };
    }
  } else {
    root = text;
  }
  if (root === undefined || root === null) return { servers, problems };
  if (typeof root !== 'object' || Array.isArray(root)) {
    problems.push({ file, key: '', message: 'expected an object with a "servers" map' });
    return { servers, problems };
  }
  const obj = root as Record<string, unknown>;
  if (typeof text === 'string') problems.push(...misplacedKeys(file, text, obj));

  const inputs: InputDefinition[] = [];
  if (obj.inputs !== undefined) {
    if (!Array.isArray(obj.inputs)) {
      problems.push({ file, key: 'inputs', message: 'expected an array' });
    } else {
      obj.inputs.forEach((raw, i) => {
        const r = inputSchema.safeParse(raw);
        if (r.success) inputs.push(r.data);
        else problems.push({ file, ...firstIssue(r.error, `inputs.${i}`) });
      });
    }
  }

  const rawServers = obj.servers;
  if (rawServers === undefined) return { servers, problems };
  if (typeof rawServers !== 'object' || rawServers === null || Array.isArray(rawServers)) {
    problems.push({ file, key: 'servers', message: 'expected an object mapping server names to definitions' });
    return { servers, problems };
  }

  for (const [name, raw] of Object.entries(rawServers as Record<string, unknown>)) {
    const key = `servers.${name}`;
    const def = parseServer(raw, key);
    if ('problem' in def) {
      problems.push({ file, ...def.problem });
      continue;
    }
    servers.push({ id: name, name, source, transport: def.transport, inputs });
  }
  return { servers, problems };
}

/**
 * The top-level keys of an mcp.json that are not `servers`/`inputs`, with their line: a server
 * written beside `"servers"` (a brace closed too early) was silently ignored.
 */
function misplacedKeys(file: string, text: string, obj: Record<string, unknown>): ConfigProblem[] {
  const unknown = Object.keys(obj).filter((k) => !TOP_LEVEL_KEYS.has(k));
  if (unknown.length === 0) return [];
  const props = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })?.children ?? [];
  return unknown.map((key) => {
    const at = props.find((p) => p.children?.[0]?.value === key)?.offset;
    const position = at === undefined ? undefined : offsetToLineColumn(text, at);
    const value = obj[key];
    const looksLikeServer = typeof value === 'object' && value !== null && ('command' in value || 'url' in value);
    const where = position ? ` (line ${position.line})` : '';
    const message = looksLikeServer
      ? `is outside "servers"${where} and is ignored: move this server inside "servers"`
      : `is not an mcp.json key${where} and is ignored (the file has "servers" and "inputs")`;
    return { file, key, message, ...(position ? { position } : {}), misplaced: true as const };
  });
}

function parseServer(raw: unknown, key: string): { transport: TransportDefinition } | { problem: { key: string; message: string } } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problem: { key, message: 'expected an object with "command" (stdio) or "url" (http)' } };
  }
  const r = raw as Record<string, unknown>;
  const type = r.type;
  const isStdio = type === 'stdio' || (type === undefined && 'command' in r);
  const isHttp = type === 'http' || type === 'sse' || (type === undefined && 'url' in r);
  if (type !== undefined && !isStdio && !isHttp) {
    return { problem: { key: `${key}.type`, message: `unknown server type ${JSON.stringify(type)} (expected "stdio", "http" or "sse")` } };
  }
  if (isStdio) {
    const p = stdioSchema.safeParse(raw);
    if (!p.success) return { problem: firstIssue(p.error, key) };
    const env: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(p.data.env ?? {})) env[k] = v === null ? null : String(v);
    return {
      transport: { type: 'stdio', command: p.data.command, args: p.data.args ?? [], env, envFile: p.data.envFile, cwd: p.data.cwd },
    };
  }
  if (isHttp) {
    const p = httpSchema.safeParse(raw);
    if (!p.success) return { problem: firstIssue(p.error, key) };
    const legacySse = p.data.type === 'sse' ? ({ legacySse: true } as const) : {};
    let oauth: { oauth: OAuthClientCredentials } | Record<string, never> = {};
    if (p.data.oauth !== undefined) {
      const o = oauthSchema.safeParse(p.data.oauth);
      if (!o.success) return { problem: firstIssue(o.error, `${key}.oauth`) };
      const scope = { issuer: o.data.issuer, ...(o.data.scope === undefined ? {} : { scope: o.data.scope }) };
      oauth = { oauth: o.data.clientCredentials ? { ...o.data.clientCredentials, ...scope } : { ...o.data.privateKeyJwt!, ...scope } };
    }
    return { transport: { type: 'http', url: p.data.url, headers: p.data.headers ?? {}, ...legacySse, ...oauth } };
  }
  return { problem: { key, message: 'needs "command" (a stdio server) or "url" (an http server)' } };
}

function offsetToLineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last };
}

/**
 * Gives every definition a unique id, one that a server's name cannot forge:
 *
 * - a user server's id is its name, whatever a workspace defines (a workspace server of the same
 *   name neither takes it nor renames, and so restarts, the user's server);
 * - a workspace server's id is its name, unless the user or another folder has a server of that
 *   name: then `<folder>:<name>`;
 * - the parts are escaped (`%`, `/`, `:`, `#` as `%XX`), so no name spells another server's id
 *   (a workspace server named `repo:github` is `repo%3Agithub`), and an id never contains `/`:
 *   the keys `<serverId>/<taskId>` cannot collide when one id is a prefix of another.
 */
export function assignUniqueIds(defs: readonly ServerDefinition[]): ServerDefinition[] {
  const userNames = new Set(defs.filter((d) => d.source.kind === 'user').map((d) => d.name));
  const workspaceCounts = new Map<string, number>();
  for (const d of defs) if (d.source.kind === 'workspace') workspaceCounts.set(d.name, (workspaceCounts.get(d.name) ?? 0) + 1);
  const used = new Set<string>();
  const ids = new Map<ServerDefinition, string>();
  const claim = (d: ServerDefinition, id: string) => {
    let unique = id;
    for (let n = 2; used.has(unique); n++) unique = `${id}#${n}`;
    used.add(unique);
    ids.set(d, unique);
  };
  // The user's servers first: their ids never depend on what a workspace defines.
  for (const d of defs) if (d.source.kind === 'user') claim(d, escapeIdPart(d.name));
  for (const d of defs) {
    if (d.source.kind !== 'workspace') continue;
    const clashes = userNames.has(d.name) || (workspaceCounts.get(d.name) ?? 0) > 1;
    claim(d, clashes ? `${escapeIdPart(basename(d.source.folder))}:${escapeIdPart(d.name)}` : escapeIdPart(d.name));
  }
  return defs.map((d) => ({ ...d, id: ids.get(d)! }));
}

/** One part of a server id, with the characters ids and task keys are built with escaped. */
export function escapeIdPart(s: string): string {
  return s.replace(/[%/:#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function basename(p: string): string {
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? p;
}

// ---------------------------------------------------------------------------------------------
// Variable substitution

/**
 * Adds (or replaces) one server in the text of an `mcp.json`, keeping everything else —
 * comments and formatting included. Throws if the text is not valid JSONC (so nothing is lost).
 */
export function addServerToConfigText(text: string, name: string, server: Record<string, unknown>): string {
  const source = text.trim() === '' ? '{}' : text;
  const errors: ParseError[] = [];
  const root = parseJsonc(source, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new Error('the file is not a valid JSON object; fix it first (nothing was changed)');
  }
  const edits = modify(source, ['servers', name], server, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
  return applyEdits(source, edits);
}

export { parseEnvFile, resolveTransport, resolveTransportWithSecrets, VariableError, type VariableContext } from './variables.js';
