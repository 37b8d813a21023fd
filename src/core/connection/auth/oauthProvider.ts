/**
 * The SDK's `OAuthClientProvider` for one HTTP server, with its secrets in a {@link SecretStore}.
 * The SDK (`auth()` in `@modelcontextprotocol/client`, called by the transports) does all of
 * OAuth: discovery, registration, PKCE, token exchange, refresh, step-up scopes, the RFC 9207
 * `iss` check, DPoP proofs. This class only keeps what it is handed, keyed per server and per
 * authorization server:
 *
 *   mcpTasks.oauth/<server>            the discovery state (which authorization server the server uses)
 *   mcpTasks.oauth/<server>|<issuer>   client registration, tokens (with refresh token), PKCE verifier, DPoP key
 *
 * where `<server>` is the definition and the URL the server is reached at *with its variables
 * resolved* ({@link oauthServerKey}): a URL written with `${input:…}` or `${env:…}` that resolves
 * elsewhere next time is another resource, and the tokens of the first are never offered there.
 * `<issuer>` is the authorization server as the SDK names it (the `issuer` of its metadata): the
 * SDK stamps it on every registration and token set it hands over (kept as they are) and passes
 * it when it asks for them, so what one authorization server issued is never offered to another.
 *
 * It never sends the browser anywhere: an authorization the transport's `auth()` wants is kept as
 * {@link HostOAuthProvider.pendingAuthorization} and the SDK answers `REDIRECT`, which the
 * connection shows as "sign-in required". A sign-in the user asked for runs its own `auth()` calls
 * on a `SignInProvider` (signInProvider.ts) over this one; while it runs
 * ({@link HostOAuthProvider.beginSignIn}), what the transport's `auth()` wants is not even noted.
 */
import { randomBytes } from 'node:crypto';
import type { DpopSession, OAuthClientInformationContext, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client';
import { dpopSessionOf, newDpopKey, wantsDpop, type StoredDpopKey } from './dpopKey.js';
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
  /** The key DPoP-bound tokens of this registration are bound to (dpopKey.ts). */
  dpopKey?: StoredDpopKey;
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
  /**
   * A client registered beforehand (no dynamic registration). It belongs to one authorization
   * server: the first one it is offered to, unless it names its `issuer`; no other ever sees it.
   */
  readonly preRegistered?: OAuthClientInformationMixed & { issuer?: string };
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
  private _resource?: string;
  /** The authorization server the pre-registered client went to first (it goes to no other). */
  private _preRegisteredAt?: string;
  /** One DPoP session per record, for the life of this provider (the SDK keeps its nonces there). */
  private readonly _dpop = new Map<string, Promise<DpopSession | undefined>>();
  /** Record updates, one after another: each reads the record and writes it back whole. */
  private _writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly _options: HostOAuthProviderOptions) {
    this._resource = _options.resource;
    this._preRegisteredAt = _options.preRegistered?.issuer;
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

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<OAuthClientInformationMixed | undefined> {
    const record = await this._issuerRecord(ctx?.issuer);
    if (record?.record.client) return record.record.client;
    const pre = this._options.preRegistered;
    if (!pre || !record) return undefined;
    // Offered to one authorization server only: a pre-registered client id (and secret) is that server's.
    if (this._preRegisteredAt !== undefined && this._preRegisteredAt !== record.issuer) return undefined;
    this._preRegisteredAt = record.issuer;
    if (pre.client_secret) this._secretSink?.([pre.client_secret]);
    return { ...pre, issuer: record.issuer };
  }

  async saveClientInformation(client: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): Promise<void> {
    const secret = (client as { client_secret?: string }).client_secret;
    if (secret) this._secretSink?.([secret]);
    await this._updateIssuer((r) => ({ ...r, client }), ctx?.issuer ?? client.issuer);
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<OAuthTokens | undefined> {
    const tokens = (await this._issuerRecord(ctx?.issuer))?.record.tokens;
    if (tokens) this._secretSink?.(secretsOf(tokens));
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    this._secretSink?.(secretsOf(tokens));
    await this._updateIssuer((r) => ({ ...r, tokens }), ctx?.issuer ?? tokens.issuer);
  }

  /**
   * DPoP for an authorization server that takes it (dpopKey.ts): the session of the key kept for
   * this registration, made and kept on first use. The SDK signs token requests and every request
   * to the server with it, and presents a DPoP-bound token as such.
   */
  dpop(): Promise<DpopSession | undefined> {
    return this._dpopSession();
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
        // A new registration gets a new key: DPoP proofs of the old one belong to the old client.
        this._dpop.clear();
        await this._updateIssuer((r) => ({ ...r, client: undefined, dpopKey: undefined }));
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

  /** The authorization server this server uses, as the SDK names it (its issuer; from the stored discovery state). */
  async authorizationServer(): Promise<string | undefined> {
    const discovery = (await this._readServer()).discovery;
    return discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
  }

  /** Forgets everything stored for this server definition — at every URL it resolved to, at every authorization server ("Sign Out"). */
  async forget(): Promise<void> {
    const prefix = `${OAUTH_KEY_PREFIX}${oauthDefinitionPart(this._options.definitionKey)}@`;
    const keys = (await this._options.store.keys()).filter((k) => k.startsWith(prefix));
    for (const k of keys) await this._options.store.delete(k);
    this._pending = undefined;
    this._dpop.clear();
    this._preRegisteredAt = this._options.preRegistered?.issuer;
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

  /** The record of `issuer` (default: the authorization server the server uses now); undefined while none is known. */
  private async _issuerRecord(issuer?: string): Promise<{ key: string; issuer: string; record: IssuerRecord } | undefined> {
    const server = this._serverKey();
    const iss = issuer ?? (await this.authorizationServer());
    if (!iss || !server) return undefined;
    const key = `${server}|${iss}`;
    return { key, issuer: iss, record: parse<IssuerRecord>(await this._options.store.get(key)) ?? {} };
  }

  private _updateIssuer(change: (r: IssuerRecord) => IssuerRecord, issuer?: string): Promise<void> {
    const update = this._writes.then(async () => {
      const current = await this._issuerRecord(issuer);
      if (!current) throw new Error('OAuth state was saved before the authorization server was discovered');
      await this._options.store.store(current.key, JSON.stringify(change(current.record)));
    });
    this._writes = update.catch(() => undefined);
    return update;
  }

  private async _dpopSession(): Promise<DpopSession | undefined> {
    const discovery = (await this._readServer()).discovery;
    if (!wantsDpop(discovery?.authorizationServerMetadata)) return undefined;
    const current = await this._issuerRecord();
    if (!current) return undefined;
    let session = this._dpop.get(current.key);
    if (!session) {
      session = (async () => {
        const kept = current.record.dpopKey ? await dpopSessionOf(current.record.dpopKey) : undefined;
        if (kept) return kept;
        const made = await newDpopKey();
        await this._updateIssuer((r) => ({ ...r, dpopKey: made.stored }), current.issuer);
        return made.session;
      })();
      this._dpop.set(current.key, session);
      session.catch(() => this._dpop.delete(current.key));
    }
    return session;
  }
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
