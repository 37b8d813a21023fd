/**
 * Before the browser goes to the authorization page: can the authorization server be reached at
 * all? With the discovery and the client registration kept from before, the SDK builds the
 * authorization URL without asking the server anything, so a server that is down would only show
 * the browser's own error page while the sign-in waits for a redirect that never comes (minutes,
 * then "was the page closed?"). Any HTTP answer will do (the origin's root may well be a 404);
 * only a failed connection is reported, naming the server.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { errorMessage } from '../../base/errors.js';
import { SignInError } from './signInError.js';

/** How long the probe waits for any answer. */
const PROBE_TIMEOUT_MS = 15_000;

/** Resolves when the origin of `authorizationUrl` answers HTTP; rejects with an `unreachable` {@link SignInError} otherwise. */
export async function assertAuthorizationServerReachable(authorizationUrl: URL, fetchFn: FetchLike = fetch, signal?: AbortSignal): Promise<void> {
  const origin = authorizationUrl.origin;
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const res = await fetchFn(origin, { method: 'HEAD', redirect: 'manual', signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    await res.body?.cancel().catch(() => undefined);
  } catch (e) {
    if (signal?.aborted) throw new SignInError('cancelled', 'the sign-in was cancelled');
    const cause = e instanceof Error && e.cause !== undefined ? errorMessage(e.cause) : errorMessage(e);
    throw new SignInError('unreachable', `the authorization server ${origin} could not be reached (${cause})`);
  }
}
