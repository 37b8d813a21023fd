/**
 * The server's OAuth provider as one sign-in's own `auth()` calls see it. The transport may run an
 * `auth()` of its own at the same moment (another request's 401 just before the sign-in began), on
 * the server's provider. Sharing one provider, that call built its authorization URL for the
 * sign-in's loopback listener, sent the browser a second time, replaced the `state` the listener
 * expects and the PKCE verifier — and the sign-in's own redirect was refused or its code could not
 * be exchanged. So the sign-in gets its own redirect target, `state`, verifier (in memory, for
 * this sign-in only) and the client registration it used; tokens and discovery are the server's.
 */
import { randomBytes } from 'node:crypto';
import type { DpopSession, OAuthClientInformationContext, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client';
import type { HostOAuthProvider } from './oauthProvider.js';

export class SignInProvider implements OAuthClientProvider {
  private _verifier?: string;
  private _client?: OAuthClientInformationMixed;

  constructor(
    private readonly _server: HostOAuthProvider,
    /** The loopback listener of this sign-in. */
    readonly redirectUrl: string,
    /** Opens the browser at this sign-in's authorization URL. */
    private readonly _onRedirect: (url: URL) => Promise<void>,
  ) {}

  get clientMetadataUrl(): string | undefined {
    return this._server.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this._server.clientMetadata;
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<OAuthClientInformationMixed | undefined> {
    this._client ??= await this._server.clientInformation(ctx);
    return this._client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): Promise<void> {
    this._client = client;
    await this._server.saveClientInformation(client, ctx);
  }

  tokens(ctx?: OAuthClientInformationContext): Promise<OAuthTokens | undefined> {
    return this._server.tokens(ctx);
  }

  saveTokens(tokens: OAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    return this._server.saveTokens(tokens, ctx);
  }

  /** The server's DPoP key: the tokens this sign-in gets are bound to the key its requests are signed with later. */
  dpop(): Promise<DpopSession | undefined> {
    return this._server.dpop();
  }

  redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    return this._onRedirect(authorizationUrl);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this._server.noteSecret(codeVerifier);
    this._verifier = codeVerifier;
  }

  async codeVerifier(): Promise<string> {
    if (!this._verifier) throw new Error('no PKCE code verifier was saved for this sign-in');
    return this._verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    return this._server.saveDiscoveryState(state);
  }

  discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this._server.discoveryState();
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'client') this._client = undefined;
    if (scope === 'all' || scope === 'verifier') this._verifier = undefined;
    await this._server.invalidateCredentials(scope);
  }

  /**
   * After a successful sign-in: the registration its tokens were issued to is the one kept (a
   * registration the transport's concurrent `auth()` made may have replaced it), so a refresh
   * later presents the right client.
   */
  async keepClient(): Promise<void> {
    if (this._client) await this._server.saveClientInformation(this._client, this._client.issuer ? { issuer: this._client.issuer } : undefined);
  }
}
