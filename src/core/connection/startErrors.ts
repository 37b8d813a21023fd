/**
 * Why a server could not be started or reached, in words a user can act on. Node and the SDK
 * report these as "fetch failed" (the real cause is nested in `cause`, sometimes an
 * `AggregateError`) or as a bare `spawn x ENOENT`; this finds the system error underneath and
 * names what is wrong: nothing listening on a port, an unknown host, a TLS problem, a program
 * that is not on PATH or not executable.
 */
import { existsSync } from 'node:fs';
import { AuthorizationServerMismatchError, OAuthError } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';

/** What kind of failure it was: a program that could not be run, or a server that could not be reached. */
export type StartFailureKind = 'spawn' | 'network' | 'tls' | 'other';

export interface StartFailure {
  readonly kind: StartFailureKind;
  /** One readable sentence naming the cause (no trailing period). */
  readonly message: string;
}

interface SystemErrorLike {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly path?: unknown;
  readonly address?: unknown;
  readonly port?: unknown;
  readonly hostname?: unknown;
  readonly message?: unknown;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Every error in the chain: the error, its `cause`s and the members of an `AggregateError`. */
function chain(e: unknown, seen = new Set<unknown>()): unknown[] {
  if (e === null || e === undefined || seen.has(e)) return [];
  seen.add(e);
  const out: unknown[] = [e];
  if (typeof e === 'object') {
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) out.push(...chain(inner, seen));
    out.push(...chain((e as { cause?: unknown }).cause, seen));
  }
  return out;
}

/**
 * The real cause of a start failure, or `undefined` when nothing in the error's chain is a
 * system or TLS error (then the error's own message is the best there is).
 * `target` is the URL dialled or the command spawned, used when the error does not say.
 */
export function describeStartFailure(e: unknown, target?: { url?: string; command?: string; cwd?: string }): StartFailure | undefined {
  for (const err of chain(e)) {
    if (typeof err !== 'object' || err === null) continue;
    const s = err as SystemErrorLike;
    const code = typeof s.code === 'string' ? s.code : undefined;
    if (!code) continue;
    const syscall = typeof s.syscall === 'string' ? s.syscall : '';
    if (syscall.startsWith('spawn') || (target?.command && (code === 'ENOENT' || code === 'EACCES') && !target.url)) {
      const program = typeof s.path === 'string' ? s.path : (target?.command ?? syscall.replace(/^spawn\s*/, ''));
      // spawn says ENOENT for a missing working folder too: name the folder, not the program, then.
      if (code === 'ENOENT' && target?.cwd !== undefined && !existsSync(target.cwd)) return { kind: 'spawn', message: `its working folder "${target.cwd}" does not exist (ENOENT)` };
      if (code === 'ENOENT') return { kind: 'spawn', message: `the program "${program}" was not found: is it on PATH? (ENOENT)` };
      if (code === 'EACCES') return { kind: 'spawn', message: `the program "${program}" cannot be run: permission denied (EACCES); is it executable?` };
      return { kind: 'spawn', message: `the program "${program}" could not be started (${code})` };
    }
    const where = hostPort(s, target?.url);
    switch (code) {
      case 'ECONNREFUSED':
        return { kind: 'network', message: `nothing listens on ${where} (connection refused, ECONNREFUSED)` };
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return { kind: 'network', message: `the host ${typeof s.hostname === 'string' ? s.hostname : where} was not found (${code}): check the URL` };
      case 'ETIMEDOUT':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return { kind: 'network', message: `connecting to ${where} timed out (${code})` };
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return { kind: 'network', message: `${where} closed the connection (${code})` };
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return { kind: 'network', message: `${where} cannot be reached (${code})` };
    }
    if (TLS_CODE.test(code)) {
      return { kind: 'tls', message: `the TLS connection to ${where} failed: ${typeof s.message === 'string' && s.message ? s.message : code} (${code})` };
    }
  }
  return undefined;
}

/** `describeStartFailure`'s message, or the error's own message. */
export function startFailureMessage(e: unknown, target?: { url?: string; command?: string; cwd?: string }): string {
  return describeStartFailure(e, target)?.message ?? oauthErrorMessage(e) ?? errorMessage(e);
}

/**
 * An OAuth error answer (the SDK's `OAuthError`: `invalid_client`…), whose description is often
 * empty; or the SDK's refusal to present credentials to another authorization server than the one
 * they are bound to.
 */
export function oauthErrorMessage(e: unknown): string | undefined {
  if (e instanceof AuthorizationServerMismatchError) {
    return `its credentials are bound to authorization server ${e.recordedIssuer}, but the server names ${e.currentIssuer}; they were not sent there`;
  }
  const code = oauthErrorCode(e);
  if (!code) return undefined;
  const detail = code === 'invalid_client' ? ' (the client id or its secret/key was refused)' : '';
  return `the authorization server answered "${code}"${detail}${e instanceof Error && e.message ? `: ${errorMessage(e)}` : ''}`;
}

/** The OAuth error code (RFC 6749 §5.2) of an SDK `OAuthError`, if `e` is one. */
export function oauthErrorCode(e: unknown): string | undefined {
  if (!(e instanceof OAuthError)) return undefined;
  return typeof e.code === 'string' && e.code ? e.code : undefined;
}

function hostPort(s: SystemErrorLike, url: string | undefined): string {
  if (typeof s.address === 'string' && s.port !== undefined) return `${s.address}:${String(s.port)}`;
  if (url) {
    try {
      const u = new URL(url);
      return u.port ? `${u.hostname}:${u.port}` : `${u.hostname}:${u.protocol === 'https:' ? 443 : 80}`;
    } catch {
      return url;
    }
  }
  return typeof s.hostname === 'string' ? s.hostname : 'the server';
}
