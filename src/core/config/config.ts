/**
 * Server definitions in VS Code's `.vscode/mcp.json` format, parsed and validated with zod.
 *
 * A broken file or entry yields one readable {@link ConfigProblem} naming the file and the key;
 * every valid entry is still returned, so one bad server never stops the others.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { inputSchema } from './mcpJson.js';

/** Where a server definition came from. */
export type ConfigSource =
  | { readonly kind: 'workspace'; readonly file: string; readonly folder: string }
  | { readonly kind: 'user'; readonly file: string };

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


export interface ParsedConfig {
  readonly servers: ServerDefinition[];
  readonly problems: ConfigProblem[];
}

/**
 * Parses the text of an `mcp.json` (JSONC: comments and trailing commas allowed), or the value of
 * the user setting (pass an object as `value`): mcpJson.ts, in the protocol part
 * (scripts/lib/lazyParts.mjs), evaluated at the first file or setting that defines servers.
 */
export function parseMcpConfig(source: ConfigSource, text: string | unknown): ParsedConfig {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return (require('./mcpJson.js') as typeof import('./mcpJson.js')).parseMcpConfig(source, text);
}

/** Formats a problem as one line for logs and notifications. */
export function formatProblem(p: ConfigProblem): string {
  return p.key ? `${p.file}: "${p.key}": ${p.message}` : `${p.file}: ${p.message}`;
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
 * configText.ts, in the protocol part with the JSONC parser: activation parses neither.
 */
export function addServerToConfigText(text: string, name: string, server: Record<string, unknown>): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return (require('./configText.js') as typeof import('./configText.js')).addServerToConfigText(text, name, server);
}

export { parseEnvFile, resolveTransport, resolveTransportWithSecrets, VariableError, type VariableContext } from './variables.js';
