/**
 * The SDK's `OAuthClientProvider` for one HTTP server, with its secrets in a {@link SecretStore}.
 * The SDK (`auth()` in `@modelcontextprotocol/sdk/client/auth.js`, called by the transports)
 * does all of OAuth: discovery, registration, PKCE, token exchange, refresh, step-up scopes.
 * This class only keeps what it is handed, keyed per server and per authorization server:
 *
 *   mcpTasks.oauth/<server>            the discovery state (which authorization server the server uses)
 *   mcpTasks.oauth/<server>|<issuer>   client registration, tokens (with refresh token), PKCE verifier
 *
 * where `<server>` is the definition and the URL the server is reached at *with its variables
 * resolved* ({@link oauthServerKey}): a URL written with `${input:…}` or `${env:…}` that resolves
 * elsewhere next time is another resource, and the tokens of the first are never offered there.
 *
 * It never sends the browser anywhere: an authorization the transport's `auth()` wants is kept as
 * {@link HostOAuthProvider.pendingAuthorization} and the SDK answers `REDIRECT`, which the
 * connection shows as "sign-in required". A sign-in the user asked for runs its own `auth()` calls
 * on a `SignInProvider` (signInProvider.ts) over this one; while it runs
 * ({@link HostOAuthProvider.beginSignIn}), what the transport's `auth()` wants is not even noted.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SecretStore } from './secretStore.js';

/** Prefix of every SecretStorage key this module writes. */
export const OAUTH_KEY_PREFIX = 'mcpTasks.oauth/';

/** The loopback redirect URI registered with authorization servers (any port is accepted for it, RFC 8252 §7.3). */
export const LOOPBACK_REDIRECT_URI = 'http://127.0.0.1/callback';

/** An authorization the SDK wanted the browser to open while no sign-in was running. */
export interface PendingAuthorization {
  /** Origin of the authorization endpoint, for "sign in at …". */
  readonly authorizationServer: string;
  /** The scope the SDK asked for (wider after an `insufficient_scope` step-up). */
  readonly scope?: string;
}

interface IssuerRecord {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
}

interface ServerRecord {
  discovery?: OAuthDiscoveryState;
}

export interface HostOAuthProviderOptions {
  /** Identity of the server's definition (config.ts, `definitionKey`). */
  readonly definitionKey: string;
  /**
   * The resolved URL of the server, when known up front (a URL without variables); else bound by
   * {@link HostOAuthProvider.bindResource} before each connect. Unbound, nothing is read or kept.
   */
  readonly resource?: string;
  readonly store: SecretStore;
  /** `client_name` in dynamic registration. */
  readonly clientName: string;
  /** A Client ID Metadata Document URL (https) to use as client id where the authorization server supports it. */
  readonly clientMetadataUrl?: string;
  /** A client registered beforehand (client id and secret from mcp.json inputs): no dynamic registration. */
  readonly preRegistered?: OAuthClientInformationMixed;
}

/**
 * The key of one server's OAuth secrets: where it is defined and the resolved URL it is reached
 * at. `%` and `@` in the definition key are escaped, so the `<definition>@` of one definition is
 * never the start of another's keys (Sign Out forgets every resource of exactly one definition).
 */
export function oauthServerKey(definitionKey: string, url: string): string {
  return `${oauthDefinitionPart(definitionKey)}@${url}`;
}

function oauthDefinitionPart(definitionKey: string): string {
  return definitionKey.replace(/[%@]/g, (c) => (c === '%' ? '%25' : '%40'));
}

export class HostOAuthProvider implements OAuthClientProvider {
  private _signingIn = false;
  private _pending?: PendingAuthorization;
  private _secretSink?: (values: readonly string[]) => void;
  private _requiredScope?: string;
  private _resource?: string;

  constructor(private readonly _options: HostOAuthProviderOptions) {
    this._resource = _options.resource;
  }

  /**
   * Binds the secrets to the server's URL as resolved for this connect (or sign-in): tokens,
   * registrations and discovery state are read and kept under it from now on. Another URL than
   * before starts from nothing (a sign-in), and a pending step-up or authorization is forgotten.
   */
  bindResource(url: string): void {
    if (url === this._resource) return;
    this._resource = url;
    this._pending = undefined;
    this._requiredScope = undefined;
  }

  /** The resolved URL the secrets are bound to now (undefined before the first connect of a URL with variables). */
  get resource(): string | undefined {
    return this._resource;
  }

  /** Where every secret value the provider sees goes (the connection's log redactor). */
  setSecretSink(sink: (values: readonly string[]) => void): void {
    this._secretSink = sink;
  }

  /** Tells the redactor about a secret (e.g. an authorization code). */
  noteSecret(...values: string[]): void {
    this._secretSink?.(values);
  }

  get redirectUrl(): string {
    return LOOPBACK_REDIRECT_URI;
  }

  get clientMetadataUrl(): string | undefined {
    return this._options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this._options.clientName,
      redirect_uris: [LOOPBACK_REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** The authorization last wanted while no sign-in ran (cleared by {@link beginSignIn}). */
  get pendingAuthorization(): PendingAuthorization | undefined {
    return this._pending;
  }

  /** A sign-in the user asked for runs from now until {@link endSignIn} (on its own `SignInProvider`). */
  beginSignIn(): void {
    this._signingIn = true;
    this._pending = undefined;
  }

  endSignIn(): void {
    this._signingIn = false;
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    // An `auth()` of the transport (another request's 401) while the user signs in: the sign-in
    // is the authorization; this one goes nowhere and is not noted.
    if (this._signingIn) return;
    this._pending = { authorizationServer: authorizationUrl.origin, scope: authorizationUrl.searchParams.get('scope') ?? undefined };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = (await this._issuerRecord())?.record.client;
    const pre = this._options.preRegistered;
    if (pre && (pre as { client_secret?: string }).client_secret) this._secretSink?.([(pre as { client_secret: string }).client_secret]);
    return stored ?? pre;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    const secret = (client as { client_secret?: string }).client_secret;
    if (secret) this._secretSink?.([secret]);
    await this._updateIssuer((r) => ({ ...r, client }), client.issuer);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this._issuerRecord())?.record.tokens;
    if (!tokens) return undefined;
    this._secretSink?.(secretsOf(tokens));
    // Step-up pending: without the refresh token, the SDK asks for an authorization with the wider scope.
    if (this._requiredScope && !covers(tokens.scope, this._requiredScope)) return { ...tokens, refresh_token: undefined };
    return tokens;
  }

  /** A server answered `insufficient_scope` asking for `scope` (space-separated): tokens without it cannot be refreshed into it. */
  requireScope(scope: string): void {
    this._requiredScope = scope;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this._secretSink?.(secretsOf(tokens));
    await this._updateIssuer((r) => ({ ...r, tokens }), tokens.issuer);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this._secretSink?.([codeVerifier]);
    await this._updateIssuer((r) => ({ ...r, codeVerifier }));
  }

  async codeVerifier(): Promise<string> {
    const v = (await this._issuerRecord())?.record.codeVerifier;
    if (!v) throw new Error('no PKCE code verifier was saved for this sign-in');
    return v;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this._writeServer({ ...(await this._readServer()), discovery: state });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this._readServer()).discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    // Nothing discovered (or no URL bound) yet: nothing is kept that could be invalidated.
    if ((scope === 'client' || scope === 'tokens' || scope === 'verifier') && !(await this._issuerRecord())) return;
    switch (scope) {
      case 'all':
        await this.forget();
        return;
      case 'client':
        await this._updateIssuer((r) => ({ ...r, client: undefined }));
        return;
      case 'tokens':
        await this._updateIssuer((r) => ({ ...r, tokens: undefined }));
        return;
      case 'verifier':
        await this._updateIssuer((r) => ({ ...r, codeVerifier: undefined }));
        return;
      case 'discovery':
        await this._writeServer({});
        return;
    }
  }

  /** Whether tokens are stored for the authorization server this server uses now. */
  async hasTokens(): Promise<boolean> {
    return !!(await this._issuerRecord())?.record.tokens;
  }

  /** The authorization server this server uses (from the stored discovery state). */
  async authorizationServer(): Promise<string | undefined> {
    return (await this._readServer()).discovery?.authorizationServerUrl;
  }

  /** Forgets everything stored for this server definition — at every URL it resolved to, at every authorization server ("Sign Out"). */
  async forget(): Promise<void> {
    const prefix = `${OAUTH_KEY_PREFIX}${oauthDefinitionPart(this._options.definitionKey)}@`;
    const keys = (await this._options.store.keys()).filter((k) => k.startsWith(prefix));
    for (const k of keys) await this._options.store.delete(k);
    this._pending = undefined;
  }

  // ---------------------------------------------------------------------------------------

  /** The key of the bound resource; undefined while none is bound (nothing is read, writing throws). */
  private _serverKey(): string | undefined {
    return this._resource === undefined ? undefined : OAUTH_KEY_PREFIX + oauthServerKey(this._options.definitionKey, this._resource);
  }

  private _requireServerKey(): string {
    const key = this._serverKey();
    if (!key) throw new Error('OAuth state was saved before the server URL was resolved');
    return key;
  }

  private async _readServer(): Promise<ServerRecord> {
    const key = this._serverKey();
    return (key && parse<ServerRecord>(await this._options.store.get(key))) || {};
  }

  private async _writeServer(record: ServerRecord): Promise<void> {
    await this._options.store.store(this._requireServerKey(), JSON.stringify(record));
  }

  private async _issuerRecord(issuer?: string): Promise<{ key: string; record: IssuerRecord } | undefined> {
    const server = this._serverKey();
    const iss = issuer ?? (await this.authorizationServer());
    if (!iss || !server) return undefined;
    const key = `${server}|${iss}`;
    return { key, record: parse<IssuerRecord>(await this._options.store.get(key)) ?? {} };
  }

  private async _updateIssuer(change: (r: IssuerRecord) => IssuerRecord, issuer?: string): Promise<void> {
    const current = await this._issuerRecord(issuer);
    if (!current) throw new Error('OAuth state was saved before the authorization server was discovered');
    await this._options.store.store(current.key, JSON.stringify(change(current.record)));
  }
}

/** Whether a granted scope string includes every scope of `required`. */
function covers(granted: string | undefined, required: string): boolean {
  const have = new Set((granted ?? '').split(/\s+/).filter(Boolean));
  return required.split(/\s+/).filter(Boolean).every((s) => have.has(s));
}

function secretsOf(tokens: OAuthTokens): string[] {
  return [tokens.access_token, tokens.refresh_token ?? '', tokens.id_token ?? ''].filter(Boolean);
}

function parse<T>(text: string | undefined): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
