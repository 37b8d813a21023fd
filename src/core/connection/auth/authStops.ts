/**
 * The two states OAuth can stop a connection at, and when: "sign-in required" (a start, or a
 * running connection, that the server refused for want of a sign-in), naming the authorization
 * server that wants it; and "credentials rejected" (configured client credentials the
 * authorization server refused), with no retry — the same credentials would be refused again.
 * The connection (connection.ts) hands over only what these need ({@link AuthStopTarget}); if it
 * has moved on meanwhile (a stop, a new start), they do nothing.
 */
import type { RedactingLog } from '../../base/redact.js';
import type { TransportDefinition } from '../../config/config.js';
import type { ConnectionState } from '../connectionState.js';
import { credentialsRejectedMessage, rejectedCredentialsCode } from './credentialsRejected.js';
import type { ServerAuth } from './serverAuth.js';
import { isUnauthorized, SignInRequiredError } from './signInRequired.js';

/** What stopping at an OAuth state needs of a connection, for the attempt it is about. */
export interface AuthStopTarget {
  readonly name: string;
  /** The file the server's definition came from (named in the credentials' message). */
  readonly configFile: string;
  readonly log: RedactingLog;
  readonly auth: ServerAuth | undefined;
  /** The URL dialled last: its origin is named when nothing better is known. */
  dialledUrl(): string | undefined;
  /** Whether the attempt is still the connection's. */
  isCurrent(): boolean;
  abortAll(reason: string): void;
  /** Ends the attempt. */
  teardown(reason: string): void;
  setState(state: ConnectionState): void;
}

/** Which OAuth stop a failed handshake calls for, if any (`startCause`, `rejectedCode`: what the attempt's transport saw). */
export function authStopOf(
  e: unknown,
  seen: { readonly startCause: unknown; readonly rejectedCode: string | undefined },
  transport: TransportDefinition,
  auth: ServerAuth | undefined,
): { readonly kind: 'sign-in' } | { readonly kind: 'credentials-rejected'; readonly code: string; readonly issuer: string | undefined } | undefined {
  if (!auth) return undefined;
  if (isUnauthorized(seen.startCause) || isUnauthorized(e)) return { kind: 'sign-in' };
  const rejected = auth.interactive ? undefined : (seen.rejectedCode ?? rejectedCredentialsCode(e));
  if (rejected && transport.type === 'http') return { kind: 'credentials-rejected', code: rejected, issuer: transport.oauth?.issuer };
  return undefined;
}

/**
 * The server wants a sign-in: stops at "needs-sign-in" (naming the authorization server) until the
 * user signs in. `starting`: rejects with {@link SignInRequiredError}, for the start that hit it.
 */
export async function stopForSignIn(target: AuthStopTarget, starting = false): Promise<void> {
  if (!target.isCurrent()) return;
  const auth = target.auth;
  const pending = auth?.pendingAuthorization();
  // Synchronous when the SDK just asked for an authorization (the usual case): the state changes before the failed request's caller runs.
  const discovered = !pending && auth?.provider.discoveryState ? (await auth.provider.discoveryState())?.authorizationServerUrl : undefined;
  const authorizationServer = pending?.authorizationServer ?? discovered ?? new URL(target.dialledUrl() ?? 'http://unknown').origin;
  if (!target.isCurrent()) return;
  target.log.warn(`sign-in required at ${authorizationServer}${pending?.scope ? ` (scope ${pending.scope})` : ''}`);
  target.abortAll(`"${target.name}" needs a sign-in`);
  target.teardown('sign-in required');
  target.setState({ kind: 'needs-sign-in', authorizationServer, scope: pending?.scope });
  if (starting) throw new SignInRequiredError(target.name, authorizationServer);
}

/** The authorization server refused the configured client credentials: stops at "credentials-rejected" and rejects. */
export async function stopForRejectedCredentials(target: AuthStopTarget, code: string, issuer: string | undefined): Promise<void> {
  if (!target.isCurrent()) return;
  const discovered = issuer ? undefined : (await target.auth?.provider.discoveryState?.())?.authorizationServerUrl;
  const authorizationServer = issuer ?? discovered ?? 'its authorization server';
  if (!target.isCurrent()) return;
  const message = target.log.redactor.redactText(credentialsRejectedMessage(target.name, authorizationServer, code, target.configFile));
  target.log.error(message);
  target.teardown('client credentials refused');
  target.setState({ kind: 'credentials-rejected', authorizationServer, message });
  throw new Error(`"${target.name}" could not start: ${message}`);
}
