/** Why a sign-in did not complete: one typed error with a reason the UI can word. */
export type SignInFailure =
  /** The user cancelled (the sign-in was aborted). */
  | 'cancelled'
  /** No redirect came back in time (e.g. the browser page was closed). */
  | 'timeout'
  /** No redirect with the `state` sent came in time, only redirects with another one (forged or stale: each ignored). */
  | 'state-mismatch'
  /** The authorization server answered the redirect with an error (e.g. `access_denied`). */
  | 'denied'
  /** The authorization server could not be reached. */
  | 'unreachable'
  /** Anything else the SDK's OAuth code reported. */
  | 'failed';

export class SignInError extends Error {
  constructor(
    readonly failure: SignInFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

/**
 * Only an http(s) URL goes to the browser. The authorization server (which the MCP server names)
 * chooses the URL; any other scheme (`file:`, `vscode:`, `command:`, `blob:https://…`,
 * `javascript:`) would hand it a local file, an editor URI handler or a script instead of a page.
 */
export function assertBrowsable(url: URL): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SignInError('failed', `the authorization server asked to open ${JSON.stringify(url.protocol)} URL; only http and https are opened`);
  }
}
