/**
 * Authorizations without a browser beyond client credentials (authFactory.ts), both ending in the
 * RFC 7523 JWT-bearer grant at the server's authorization server, both run by the SDK's `auth()`:
 *
 * - enterprise-managed authorization (cross-app access, the MCP `enterprise-managed-authorization`
 *   extension): the enterprise IdP's ID token is exchanged at the IdP for an ID-JAG (RFC 8693), and
 *   the ID-JAG for an access token — the SDK's `CrossAppAccessProvider` and
 *   `requestJwtAuthorizationGrant` / `discoverAndRequestJwtAuthGrant`;
 * - workload identity (the MCP `auth/wif` extension): a JWT the platform issued to the workload is the
 *   grant itself. The SDK has no provider for it; {@link WorkloadIdentityProvider} only supplies the
 *   grant's parameters to `auth()`.
 *
 * Tokens stay in memory (a new one is asked for on the next 401), as for client credentials.
 */
import {
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  requestJwtAuthorizationGrant,
  type FetchLike,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { ClientCredentialsAuth, type ServerAuth } from './serverAuth.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Where the IdP's token exchange is: its token endpoint, or its issuer (the endpoint then from its metadata). */
export type IdentityProvider = { readonly tokenEndpoint: string } | { readonly issuer: string };

export interface CrossAppAccessCredentials {
  readonly idp: IdentityProvider;
  /** The ID token the enterprise IdP issued to the user (where it comes from is the caller's business). */
  readonly idToken: () => string | Promise<string>;
  /** This client at the IdP. */
  readonly idpClientId: string;
  readonly idpClientSecret?: string;
  /** This client at the server's authorization server. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The authorization server these credentials belong to: they are sent to no other. */
  readonly issuer?: string;
}

/** Enterprise-managed authorization through the SDK's `CrossAppAccessProvider`. */
export function crossAppAccessAuth(c: CrossAppAccessCredentials, clientName: string, fetchFn?: FetchLike): ServerAuth {
  // The grant's secrets go to the redactor through the auth made below (the callback runs later).
  const note = { secrets: (_values: readonly string[]): void => undefined };
  const provider = new CrossAppAccessProvider({
    fetchFn,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    clientName,
    expectedIssuer: c.issuer,
    // The SDK found the server's authorization server and resource first: the ID-JAG is asked for exactly those.
    assertion: async (ctx) => {
      const idToken = await c.idToken();
      note.secrets([idToken]);
      const request = { audience: ctx.authorizationServerUrl, resource: ctx.resourceUrl, idToken, clientId: c.idpClientId, clientSecret: c.idpClientSecret, scope: ctx.scope, fetchFn: ctx.fetchFn };
      const grant = 'tokenEndpoint' in c.idp ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: c.idp.tokenEndpoint }) : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl: c.idp.issuer });
      note.secrets([grant.jwtAuthGrant]);
      return grant.jwtAuthGrant;
    },
  });
  const auth = new ClientCredentialsAuth(provider, fetchFn, [c.clientSecret, c.idpClientSecret ?? '']);
  note.secrets = (values) => auth.noteSecrets(values);
  return auth;
}

export interface WorkloadIdentityCredentials {
  /** This workload's client id at the server's authorization server. */
  readonly clientId: string;
  /** The workload's JWT, read each time a token is asked for (platforms rotate it). */
  readonly assertion: () => string | Promise<string>;
  /** The authorization server the client id belongs to: the assertion is sent to no other. */
  readonly issuer?: string;
}

/** Workload identity: the JWT-bearer grant with the workload's JWT, through the SDK's `auth()`. */
export function workloadIdentityAuth(c: WorkloadIdentityCredentials, clientName: string, fetchFn?: FetchLike): ServerAuth {
  const note = { secrets: (_values: readonly string[]): void => undefined };
  const assertion = async () => {
    const jwt = await c.assertion();
    note.secrets([jwt]);
    return jwt;
  };
  const auth = new ClientCredentialsAuth(new WorkloadIdentityProvider({ ...c, assertion }, clientName), fetchFn);
  note.secrets = (values) => auth.noteSecrets(values);
  return auth;
}

/**
 * The SDK's `OAuthClientProvider` contract for the JWT-bearer grant of a workload (RFC 7523 §2.1),
 * a public client. A refused assertion is not sent again by the SDK's retry after `invalid_client`
 * or `unauthorized_client`: the same JWT would be refused again (the extension asks clients not to).
 */
export class WorkloadIdentityProvider implements OAuthClientProvider {
  private _tokens?: OAuthTokens;
  private _refused = false;

  constructor(
    private readonly _c: WorkloadIdentityCredentials,
    private readonly _clientName: string,
  ) {}

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this._clientName, redirect_uris: [], grant_types: [JWT_BEARER], token_endpoint_auth_method: 'none' };
  }

  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this._c.clientId, ...(this._c.issuer ? { issuer: this._c.issuer } : {}) };
  }

  tokens(): OAuthTokens | undefined {
    return this._tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this._tokens = tokens;
  }

  redirectToAuthorization(): never {
    throw new Error('a workload identity needs no browser');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw new Error('a workload identity has no PKCE verifier');
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this._tokens = undefined;
    // The SDK calls this right before it asks once more with the same assertion.
    if (scope === 'all' || scope === 'client') this._refused = true;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    if (this._refused) {
      this._refused = false;
      throw new Error('the authorization server refused the workload identity; the same assertion is not sent again');
    }
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this._c.assertion() });
    if (scope) params.set('scope', scope);
    return params;
  }
}
