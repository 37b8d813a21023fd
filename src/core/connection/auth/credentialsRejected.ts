/**
 * "The authorization server refused this server's client credentials": recognizing the SDK's
 * OAuth error answer to a client-credentials token request (`invalid_client`, `unauthorized_client`)
 * and the words the connection's `credentials-rejected` state carries. Retrying with the same
 * credentials cannot help, so the connection stops there until the user fixes them.
 */

import { oauthErrorCode } from '../startErrors.js';

/** The OAuth error codes (RFC 6749 §5.2) that mean the client id or its secret/key was refused. */
const REJECTED = new Set(['invalid_client', 'unauthorized_client']);

/** The OAuth error code when `e` (or its cause) is a refusal of the client credentials; else undefined. */
export function rejectedCredentialsCode(e: unknown, depth = 0): string | undefined {
  if (!(e instanceof Error) || depth > 3) return undefined;
  const code = oauthErrorCode(e);
  if (code !== undefined && REJECTED.has(code)) return code;
  return rejectedCredentialsCode(e.cause, depth + 1);
}

/** The message of the `credentials-rejected` state: the server, the authorization server, what it answered, where to fix it. */
export function credentialsRejectedMessage(server: string, authorizationServer: string, code: string, configFile: string): string {
  return `the authorization server ${authorizationServer} refused the client credentials of "${server}" (${code}): check the client id and its secret or private key in ${configFile}, or enter the input again`;
}
