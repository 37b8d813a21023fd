/** "This server needs a sign-in": the typed error a start rejects with, and how it is recognized. */
import { UnauthorizedError } from '@modelcontextprotocol/client';

/** A start stopped at "sign-in required" (the connection's state names the authorization server). */
export class SignInRequiredError extends Error {
  constructor(
    readonly serverName: string,
    readonly authorizationServer: string,
  ) {
    super(`"${serverName}" needs a sign-in at ${authorizationServer}`);
    this.name = 'SignInRequiredError';
  }
}

/** Whether an error is the SDK's `UnauthorizedError` (its `auth()` wants a browser), also when wrapped as a cause. */
export function isUnauthorized(e: unknown, depth = 0): boolean {
  if (!e || depth > 3) return false;
  if (e instanceof UnauthorizedError) return true;
  return e instanceof Error && isUnauthorized(e.cause, depth + 1);
}
