/**
 * `${…}` variables in a server definition (`${workspaceFolder}`, `${env:NAME}`, `${input:id}`…),
 * resolved when the server starts, with the secret values that went into its transport (for the
 * log's redactor), and the dotenv files an `envFile` names.
 *
 * A stdio server always runs in a defined folder ({@link serverFolder}): its `cwd`, or, when none
 * is set, its workspace folder (a workspace server) or the user's home folder (a user server);
 * a relative `cwd` or `envFile` is taken from there too. Never the extension host's own working
 * directory: VS Code started with `code .` in a repository would otherwise run `node ./server.js`
 * of a user server from that repository, trusted or not.
 */
import { homedir } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { headerSecrets, isCredentialHeader, isSecretName } from '../base/redact.js';
import type { InputDefinition, OAuthClientCredentials, ServerDefinition, TransportDefinition } from './config.js';

/** Values for `${…}` variables. `input` is asked lazily, once per id. */
export interface VariableContext {
  readonly workspaceFolder?: string;
  readonly userHome?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves `${input:id}`; rejects (e.g. the user cancelled) to abort the start. */
  readonly input?: (input: InputDefinition) => Promise<string>;
}

/** A variable could not be resolved. */
export class VariableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VariableError';
  }
}

const VARIABLE = /\$\{([^}]+)\}/g;

/**
 * The folder a stdio server runs in when its definition sets no `cwd`, and that a relative `cwd`
 * or `envFile` is taken from: a workspace server's own workspace folder, a user server's home
 * folder (`userHome`, else the system's). Never the extension host's working directory.
 */
export function serverFolder(def: Pick<ServerDefinition, 'source'>, userHome?: string): string {
  return def.source.kind === 'workspace' ? def.source.folder : (userHome || homedir());
}

/** Replaces `${workspaceFolder}`, `${env:NAME}`, `${input:id}` etc. in every string of the transport. */
export async function resolveTransport(def: ServerDefinition, ctx: VariableContext): Promise<TransportDefinition> {
  return (await resolveTransportWithSecrets(def, ctx)).transport;
}

/**
 * {@link resolveTransport}, plus the secret values that went into the result, for the log's
 * redactor: every `${input:…}` value, every `${env:NAME}` value of a secret-looking NAME, the
 * values of secret-looking `env` entries and of credential headers (and their bearer tokens).
 */
export async function resolveTransportWithSecrets(def: ServerDefinition, ctx: VariableContext): Promise<{ transport: TransportDefinition; secrets: string[] }> {
  const secrets: string[] = [];
  const transport = await resolveTransportInner(def, ctx, secrets);
  if (transport.type === 'stdio') {
    for (const [k, v] of Object.entries(transport.env)) if (v !== null && isSecretName(k)) secrets.push(v);
  } else {
    for (const [k, v] of Object.entries(transport.headers)) if (isCredentialHeader(k)) secrets.push(...headerSecrets(v));
    // Written literally in mcp.json or not, a client secret or private key is never logged.
    if (transport.oauth) secrets.push('clientSecret' in transport.oauth ? transport.oauth.clientSecret : transport.oauth.privateKey);
  }
  return { transport, secrets };
}

async function resolveTransportInner(def: ServerDefinition, ctx: VariableContext, secrets: string[]): Promise<TransportDefinition> {
  const inputValues = new Map<string, string>();
  const resolve = async (s: string): Promise<string> => {
    const names = [...s.matchAll(VARIABLE)].map((m) => m[1]!);
    for (const name of names) {
      if (name.startsWith('input:')) {
        const id = name.slice('input:'.length);
        if (inputValues.has(id)) continue;
        const input = def.inputs.find((i) => i.id === id);
        if (!input) throw new VariableError(`\${input:${id}} is used by server "${def.name}" but no input with id "${id}" is declared in ${def.source.file}`);
        if (!ctx.input) throw new VariableError(`\${input:${id}} cannot be asked here`);
        const value = await ctx.input(input);
        inputValues.set(id, value);
        secrets.push(value);
      }
    }
    return s.replace(VARIABLE, (whole, name: string) => {
      if (name === 'workspaceFolder') {
        if (ctx.workspaceFolder === undefined) throw new VariableError(`\${workspaceFolder} is used by server "${def.name}" but no folder is open`);
        return ctx.workspaceFolder;
      }
      if (name === 'workspaceFolderBasename') return ctx.workspaceFolder ? basename(ctx.workspaceFolder) : '';
      if (name === 'userHome') return ctx.userHome ?? '';
      if (name === 'pathSeparator' || name === '/') return process.platform === 'win32' ? '\\' : '/';
      if (name.startsWith('env:')) {
        const value = ctx.env[name.slice(4)] ?? '';
        if (isSecretName(name.slice(4))) secrets.push(value);
        return value;
      }
      if (name.startsWith('input:')) return inputValues.get(name.slice(6)) ?? '';
      return whole;
    });
  };
  const t = def.transport;
  if (t.type === 'stdio') {
    const folder = serverFolder(def, ctx.userHome);
    const env: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(t.env)) env[k] = v === null ? null : await resolve(v);
    return {
      type: 'stdio',
      command: await resolve(t.command),
      args: await Promise.all(t.args.map(resolve)),
      env,
      // Absolute from the server's folder: spawn would take a relative one (and `./server.js` in args) from the host's working directory.
      envFile: t.envFile === undefined ? undefined : resolvePath(folder, await resolve(t.envFile)),
      cwd: resolvePath(folder, t.cwd === undefined ? '.' : await resolve(t.cwd)),
    };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(t.headers)) headers[k] = await resolve(v);
  return { type: 'http', url: await resolve(t.url), headers, ...(t.legacySse ? { legacySse: true } : {}), ...(t.oauth ? { oauth: await resolveOAuth(t.oauth, resolve) } : {}) };
}

async function resolveOAuth(o: OAuthClientCredentials, resolve: (s: string) => Promise<string>): Promise<OAuthClientCredentials> {
  const scope = { ...(o.issuer === undefined ? {} : { issuer: await resolve(o.issuer) }), ...(o.scope === undefined ? {} : { scope: await resolve(o.scope) }) };
  const clientId = await resolve(o.clientId);
  if ('clientSecret' in o) return { clientId, clientSecret: await resolve(o.clientSecret), ...scope };
  return { clientId, privateKey: await resolve(o.privateKey), algorithm: o.algorithm, ...scope };
}

/** Parses a dotenv file: `KEY=value` lines, `#` comments, optional quotes, `export ` prefix. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!;
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      const quote = value[0];
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      const hash = value.indexOf(' #');
      if (hash >= 0) value = value.slice(0, hash).trimEnd();
    }
    out[m[1]!] = value;
  }
  return out;
}

function basename(p: string): string {
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? p;
}
