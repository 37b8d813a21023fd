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
