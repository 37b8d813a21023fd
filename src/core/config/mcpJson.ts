/**
 * The `mcp.json` format's schemas (zod) and its parser (config.ts's `parseMcpConfig`): in the protocol
 * part (scripts/lib/lazyParts.mjs), evaluated at the first file or setting that defines servers.
 */
import { parse as parseJsonc, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import type { ConfigProblem, ConfigSource, InputDefinition, OAuthClientCredentials, ParsedConfig, ServerDefinition, TransportDefinition } from './config.js';
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

export const inputSchema = z.discriminatedUnion('type', [
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


/** The keys an mcp.json has at its top level; any other is ignored (and reported). */
const TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(['servers', 'inputs', '$schema']);

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
