/**
 * Sign In and Sign Out as a connection runs them: what is asked of the gate and of the
 * authorization server, and how the connection is stopped and started around them. The
 * connection hands over only the few things these need ({@link SignInTarget}).
 */
import { errorMessage } from '../../base/errors.js';
import type { RedactingLog } from '../../base/redact.js';
import { SignInError, type ServerAuth } from './serverAuth.js';
import { passes, type ConnectVerdict } from '../../config/gate.js';

/** What Sign In / Sign Out need of a connection. */
export interface SignInTarget {
  readonly name: string;
  readonly log: RedactingLog;
  /** Whether the server may be contacted now; blocks it with the reason otherwise (config/gate.ts). */
  passGate(): Promise<ConnectVerdict>;
  /** The server's URL, its `${…}` variables resolved. */
  httpUrl(): Promise<string>;
  /** Connected or trying to be (neither stopped nor blocked). */
  isActive(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Signs in (a browser round trip, or a token request for client credentials), then restarts the
 * connection. A server the gate does not allow now is neither signed in to nor contacted.
 */
export async function signInAndRestart(target: SignInTarget, auth: ServerAuth, signal?: AbortSignal): Promise<void> {
  const verdict = await target.passGate();
  if (!passes(verdict)) throw new SignInError('failed', verdict);
  let url: string;
  try {
    url = await target.httpUrl();
  } catch (e) {
    throw new SignInError('failed', target.log.redactor.redactText(errorMessage(e)));
  }
  target.log.info(`signing in (${auth.interactive ? 'browser' : 'client credentials'})`);
  try {
    await auth.signIn(url, signal);
  } catch (e) {
    target.log.warn(`sign-in failed: ${errorMessage(e)}`);
    throw e;
  }
  target.log.info('signed in');
  await target.stop();
  await target.start();
}

/**
 * Forgets the tokens, refresh tokens and client registrations, then reconnects (which asks for a
 * sign-in) only if the connection was active: a stopped or blocked server only forgets.
 */
export async function signOutAndReconnect(target: SignInTarget, auth: ServerAuth): Promise<void> {
  const reconnect = target.isActive();
  if (reconnect) await target.stop();
  await auth.signOut();
  target.log.info('signed out: the stored tokens and client registrations were forgotten');
  if (reconnect) await target.start().catch(() => undefined);
}
