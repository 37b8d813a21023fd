/**
 * Where a connection reaches its server, as resolved for one connect: the URL an HTTP server is
 * dialled at, or the exact command line a stdio server is spawned with. A sent task is bound to
 * the origin it was sent to (requestor/sentOrigin.ts): the same definition name resolving
 * elsewhere (an edited URL, a `${env:…}` or `${input:…}` with another value) is another server,
 * and must never be asked about, or answer for, the tasks of the first.
 */
import { createHash } from 'node:crypto';
import { isSecretName } from '../base/redact.js';
import type { TransportDefinition } from '../config/config.js';

/** Longest {@link ServerOrigin.label} kept (it is stored with every sent task). */
export const MAX_ORIGIN_LABEL_CHARS = 200;

/** A resolved origin: compared by `id`, shown by `label`. */
export interface ServerOrigin {
  readonly kind: 'http' | 'stdio';
  /**
   * A digest of everything that decides which server answers: the whole URL (query included), or
   * the command, its arguments, its folder and its environment (see {@link originOf}). A digest
   * rather than the text: a URL or an argument may carry a secret, and this is stored.
   */
  readonly id: string;
  /** For people: the URL without credentials, query or fragment, or the command line and its folder; redacted, at most {@link MAX_ORIGIN_LABEL_CHARS}. */
  readonly label: string;
}

/**
 * The origin of a resolved transport. For stdio it is the command, its arguments, its working
 * folder, the envFile path and the definition's `env` entries whose names do not look secret (an
 * `API_URL` steers where a proxy such as `mcp-remote` connects, so it is part of where a task
 * lives); entries with secret-looking names (`GITHUB_TOKEN`) are left out: a rotated token is
 * the same server, and no secret goes into the digest. The envFile's contents are not read here
 * (the start gate binds them to the approval). `redact` hides the secrets met while resolving.
 */
export function originOf(transport: TransportDefinition, redact: (text: string) => string = (t) => t): ServerOrigin {
  if (transport.type === 'http') {
    const url = normalUrl(transport.url);
    return { kind: 'http', id: digest({ kind: 'http', url: url.href ?? transport.url }), label: bounded(redact(url.shown ?? transport.url)) };
  }
  const env = Object.entries(transport.env)
    .filter(([name, value]) => value !== null && !isSecretName(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const id = digest({ kind: 'stdio', command: transport.command, args: transport.args, cwd: transport.cwd ?? null, envFile: transport.envFile ?? null, env });
  const line = [transport.command, ...transport.args].map(quoteArg).join(' ');
  return { kind: 'stdio', id, label: bounded(redact(transport.cwd ? `${line} (in ${transport.cwd})` : line)) };
}

/** Whether two origins are the same server. */
export function sameOrigin(a: Pick<ServerOrigin, 'id'> | undefined, b: Pick<ServerOrigin, 'id'> | undefined): boolean {
  return a !== undefined && b !== undefined && a.id === b.id;
}

function normalUrl(raw: string): { href?: string; shown?: string } {
  try {
    const u = new URL(raw);
    return { href: u.href, shown: `${u.protocol}//${u.host}${u.pathname}` };
  } catch {
    return {};
  }
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}

function quoteArg(arg: string): string {
  return arg === '' || /[\s"']/.test(arg) ? JSON.stringify(arg) : arg;
}

function bounded(text: string): string {
  // One line: a label is read inside a sentence.
  const line = text.replace(/[\r\n\t]+/g, ' ');
  return line.length > MAX_ORIGIN_LABEL_CHARS ? `${line.slice(0, MAX_ORIGIN_LABEL_CHARS - 1)}…` : line;
}
