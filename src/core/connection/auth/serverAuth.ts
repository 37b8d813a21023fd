/**
 * How one HTTP server is authorized: the provider handed to the SDK transport, and the sign-in
 * the user (or the headless client) starts when the connection says "sign-in required".
 * Everything of OAuth itself is the SDK's `auth()` — discovery, registration, the RFC 9207 `iss`
 * check of the redirect, scope step-up on `insufficient_scope` (the union of the scopes, no
 * refresh when it is wider) — here is only the order of the two calls of an authorization-code
 * sign-in (one that sends the browser off, one with what came back) and the mapping of failures
 * to a {@link SignInError}.
 */
import { auth, AuthorizationServerMismatchError, isDpopNonceChallenge, IssuerMismatchError, validateAuthorizationResponseIssuer, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { errorMessage } from '../../base/errors.js';
import type { TransportDefinition } from '../../config/config.js';
import { LoopbackRedirect, type AuthorizationResponse } from './loopbackRedirect.js';
import { assertAuthorizationServerReachable } from './reachable.js';
import type { HostOAuthProvider, PendingAuthorization } from './oauthProvider.js';
import { SignInError, assertBrowsable } from './signInError.js';
import { SignInProvider } from './signInProvider.js';

export { SignInError, assertBrowsable, type SignInFailure } from './signInError.js';

/** The authorization of one server, as the connection uses it. */
export interface ServerAuth {
  /** Handed to the Streamable HTTP / SSE transport as `authProvider`. */
  readonly provider: OAuthClientProvider;
  /** Whether signing in needs a person and a browser (false for client credentials). */
  readonly interactive: boolean;
  /** What the server asked for when the connection stopped at "sign-in required". */
  pendingAuthorization(): PendingAuthorization | undefined;
  /** Signs in (browser round trip, or a token request); rejects with a {@link SignInError}. */
  signIn(serverUrl: string, signal?: AbortSignal): Promise<void>;
  /** Forgets every token, refresh token, registration and verifier of this server. */
  signOut(): Promise<void>;
  /** Where secret values (tokens, codes, verifiers) go: the connection's log redactor. */
  setSecretSink(sink: (values: readonly string[]) => void): void;
  /** The transport's fetch, watched (a token the server refuses: see {@link AuthorizationCodeAuth.wrapFetch}). */
  wrapFetch(fetch: FetchLike): FetchLike;
  /** The definition's transport with its variables resolved, before each connect (credentials from mcp.json). */
  useResolved?(transport: TransportDefinition): void;
}

/** Opens the authorization URL in a browser (the system browser in VS Code; fetch in the headless client). */
export type OpenAuthorizationUrl = (url: URL, info: { readonly authorizationServer: string }) => Promise<void>;

export interface AuthorizationCodeAuthOptions {
  readonly provider: HostOAuthProvider;
  readonly openBrowser: OpenAuthorizationUrl;
  /** How long to wait for the browser to come back (default 5 minutes). */
  readonly timeoutMs?: number;
  readonly fetchFn?: FetchLike;
}

/** Authorization code + PKCE with a loopback redirect. */
export class AuthorizationCodeAuth implements ServerAuth {
  readonly interactive = true;

  constructor(private readonly _options: AuthorizationCodeAuthOptions) {}

  get provider(): HostOAuthProvider {
    return this._options.provider;
  }

  pendingAuthorization(): PendingAuthorization | undefined {
    return this._options.provider.pendingAuthorization;
  }

  setSecretSink(sink: (values: readonly string[]) => void): void {
    this._options.provider.setSecretSink(sink);
  }

  /** The URL resolved for this connect: the tokens kept and offered are those of exactly this resource. */
  useResolved(transport: TransportDefinition): void {
    if (transport.type === 'http') this._options.provider.bindResource(transport.url);
  }

  /**
   * A 401 to a request that carried our token: the server no longer takes it. The SDK's `auth()`
   * then starts from the discovery it kept, and would refresh at (or send the browser to) the
   * authorization server the server named before. The server may have moved to another one
   * since: the kept discovery is dropped, so `auth()` asks the server again, and at a new
   * authorization server registers anew (what the old one issued is never offered there).
   */
  wrapFetch(fetch: FetchLike): FetchLike {
    const provider = this._options.provider;
    return async (url, init) => {
      const response = await fetch(url, init);
      // (A DPoP nonce challenge is no refusal: the SDK signs again with the nonce and repeats the request.)
      if (response.status === 401 && new Headers(init?.headers).has('authorization') && !isDpopNonceChallenge(response)) await provider.invalidateCredentials('discovery');
      return response;
    };
  }

  async signIn(serverUrl: string, signal?: AbortSignal): Promise<void> {
    const provider = this._options.provider;
    provider.bindResource(serverUrl);
    const scope = provider.pendingAuthorization?.scope;
    const receiver = await LoopbackRedirect.start({ timeoutMs: this._options.timeoutMs ?? 300_000, signal });
    try {
      provider.beginSignIn();
      // This sign-in's own view of the provider (signInProvider.ts): an auth() the transport runs meanwhile cannot take its place.
      const own = new SignInProvider(provider, receiver.redirectUrl, async (url) => {
        assertBrowsable(url);
        receiver.expectState(url.searchParams.get('state') ?? undefined);
        await assertAuthorizationServerReachable(url, this._options.fetchFn, signal);
        await this._options.openBrowser(url, { authorizationServer: url.origin });
      });
      // A sign-in gets new tokens: a refresh would bring back the old scope (step-up needs the wider one).
      await provider.invalidateCredentials('tokens');
      const fetchFn = this._options.fetchFn;
      let result = await mapped(() => auth(own, { serverUrl, scope, fetchFn }));
      if (result === 'REDIRECT') {
        const response = await receiver.waitForRedirect();
        if (response.kind === 'error') throw await refusal(response, own);
        provider.noteSecret(response.code);
        // With the `iss` the redirect carried: the SDK checks it names the authorization server the browser went to.
        result = await mapped(() => auth(own, { serverUrl, scope, authorizationCode: response.code, iss: response.iss, fetchFn }));
      }
      if (result !== 'AUTHORIZED') throw new SignInError('failed', 'the authorization server did not issue tokens');
      await own.keepClient();
    } finally {
      provider.endSignIn();
      receiver.close();
    }
  }

  async signOut(): Promise<void> {
    await this._options.provider.forget();
  }
}

/**
 * The parts of {@link ServerAuth} that an authorization without a browser leaves empty: nothing
 * is ever pending, the transport's fetch is used as it is, and secrets go to the sink it keeps.
 */
export abstract class NonInteractiveAuth implements ServerAuth {
  readonly interactive = false;
  /** The log's redactor (nothing until the connection sets it). */
  protected _sink: (values: readonly string[]) => void = () => {};

  abstract readonly provider: OAuthClientProvider;
  abstract signIn(serverUrl: string, signal?: AbortSignal): Promise<void>;
  abstract signOut(): Promise<void>;

  pendingAuthorization(): PendingAuthorization | undefined {
    return undefined;
  }

  setSecretSink(sink: (values: readonly string[]) => void): void {
    this._sink = sink;
  }

  wrapFetch(fetch: FetchLike): FetchLike {
    return fetch;
  }
}

/**
 * Client credentials (the `oauth-client-credentials` extension), or another grant without a
 * browser (machineAuth.ts): the SDK's provider gets tokens on the transport's first 401. Tokens stay
 * in memory. What is secret goes to the log's redactor: the credentials it was made with, every
 * token the SDK hands the provider (also when the transport runs `auth()` on a 401, without
 * {@link signIn}), and what {@link noteSecrets} is told along the way.
 */
export class ClientCredentialsAuth extends NonInteractiveAuth {
  constructor(
    readonly provider: OAuthClientProvider,
    private readonly _fetchFn?: FetchLike,
    private readonly _secrets: readonly string[] = [],
  ) {
    super();
    const save = provider.saveTokens.bind(provider);
    provider.saveTokens = (tokens, ctx) => {
      this._sink([tokens.access_token, tokens.refresh_token ?? ''].filter(Boolean));
      return save(tokens, ctx);
    };
  }

  override setSecretSink(sink: (values: readonly string[]) => void): void {
    super.setSecretSink(sink);
    sink(this._secrets.filter(Boolean));
  }

  /** A secret met on the way to a token (an ID token, an assertion grant). */
  noteSecrets(values: readonly string[]): void {
    this._sink(values.filter(Boolean));
  }

  async signIn(serverUrl: string): Promise<void> {
    const result = await mapped(() => auth(this.provider, { serverUrl, fetchFn: this._fetchFn }));
    if (result !== 'AUTHORIZED') throw new SignInError('failed', 'the authorization server did not issue a token for the client credentials');
    const tokens = await this.provider.tokens();
    if (tokens) this._sink([tokens.access_token]);
  }

  async signOut(): Promise<void> {
    await this.provider.invalidateCredentials?.('tokens');
  }
}

/**
 * The error answer of a redirect as a {@link SignInError}. Its words are the authorization
 * server's only when its `iss` names the one the sign-in went to (RFC 9207): a redirect from
 * another one (a mix-up) may say anything, and what it says is not shown.
 */
async function refusal(response: Extract<AuthorizationResponse, { kind: 'error' }>, provider: OAuthClientProvider): Promise<SignInError> {
  const metadata = (await provider.discoveryState?.())?.authorizationServerMetadata;
  try {
    validateAuthorizationResponseIssuer({ iss: response.iss, expectedIssuer: metadata?.issuer, issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true });
  } catch (e) {
    return toSignInError(e);
  }
  return new SignInError('denied', `the authorization server answered ${response.error}${response.description ? `: ${response.description.slice(0, 200)}` : ''}`);
}

/** Runs an SDK call, turning its failures into a {@link SignInError}. */
async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw toSignInError(e);
  }
}

/** Any failure of a sign-in as a {@link SignInError}. */
export function toSignInError(e: unknown): SignInError {
  if (e instanceof SignInError) return e;
  if (e instanceof IssuerMismatchError) {
    const where = e.kind === 'metadata' ? 'the authorization server\'s metadata names another issuer' : 'the redirect came from another authorization server than the one the sign-in went to';
    return new SignInError('failed', `${where} (expected ${JSON.stringify(e.expected)}, got ${JSON.stringify(e.received?.slice(0, 200))}); nothing was signed in`);
  }
  if (e instanceof AuthorizationServerMismatchError) {
    return new SignInError('failed', `the server now names another authorization server than the one the sign-in went to; nothing was signed in: sign in again`);
  }
  const msg = errorMessage(e);
  const cause = e instanceof Error ? errorMessage(e.cause) : '';
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT/i.test(`${msg} ${cause}`)) {
    return new SignInError('unreachable', `the authorization server could not be reached (${cause || msg})`);
  }
  return new SignInError('failed', msg);
}
