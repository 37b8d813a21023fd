/**
 * The {@link ServerAuth} of one HTTP server definition: authorization code + PKCE with a
 * loopback redirect, its secrets in the given store, keyed by the server's definition and resolved URL.
 * (Client credentials: see {@link clientCredentialsAuth}, and {@link serverAuthFor} for mcp.json's `"oauth"` block.)
 */
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/client';
import { definitionKey, type OAuthClientCredentials, type ServerDefinition } from '../../config/config.js';
import { HostOAuthProvider, LOOPBACK_REDIRECT_URI } from './oauthProvider.js';
import type { SecretStore } from './secretStore.js';
import { ConfiguredClientCredentialsAuth } from './configuredClientCredentials.js';
import { AuthorizationCodeAuth, ClientCredentialsAuth, type OpenAuthorizationUrl, type ServerAuth } from './serverAuth.js';

export interface AuthFactoryOptions {
  readonly store: SecretStore;
  readonly openBrowser: OpenAuthorizationUrl;
  /** `client_name` for dynamic client registration. */
  readonly clientName: string;
  readonly clientMetadataUrl?: string;
  /** How long a sign-in waits for the browser (default 5 minutes). */
  readonly timeoutMs?: number;
  /** A client registered beforehand (no dynamic registration). */
  readonly preRegistered?: { readonly clientId: string; readonly clientSecret?: string };
}

/**
 * The OAuth of an HTTP definition: the client credentials of its `"oauth"` block (no browser),
 * else the authorization code sign-in; undefined for stdio.
 */
export function serverAuthFor(def: ServerDefinition, options: AuthFactoryOptions): ServerAuth | undefined {
  if (def.transport.type !== 'http') return undefined;
  if (def.transport.oauth) return new ConfiguredClientCredentialsAuth(options.clientName);
  return authorizationCodeAuthFor(def, options);
}

/** OAuth (authorization code) for an HTTP definition; undefined for stdio. */
export function authorizationCodeAuthFor(def: ServerDefinition, options: AuthFactoryOptions): ServerAuth | undefined {
  if (def.transport.type !== 'http') return undefined;
  const provider = new HostOAuthProvider({
    definitionKey: definitionKey(def),
    // A URL with variables is bound when it is resolved, before each connect (ServerAuth.useResolved).
    resource: /\$\{[^}]+\}/.test(def.transport.url) ? undefined : def.transport.url,
    store: options.store,
    clientName: options.clientName,
    clientMetadataUrl: options.clientMetadataUrl,
    preRegistered: options.preRegistered
      ? { client_id: options.preRegistered.clientId, ...(options.preRegistered.clientSecret ? { client_secret: options.preRegistered.clientSecret } : {}), redirect_uris: [LOOPBACK_REDIRECT_URI] }
      : undefined,
  });
  return new AuthorizationCodeAuth({ provider, openBrowser: options.openBrowser, timeoutMs: options.timeoutMs });
}

/** Client credentials of the `oauth-client-credentials` extension: a secret, or a private key for a JWT assertion. */
export type ClientCredentials = OAuthClientCredentials;

/** Client-credentials auth with the SDK's providers (no browser, no person). */
export function clientCredentialsAuth(credentials: ClientCredentials, clientName: string): ServerAuth {
  const provider =
    'clientSecret' in credentials
      ? new ClientCredentialsProvider({ clientId: credentials.clientId, clientSecret: credentials.clientSecret, scope: credentials.scope, clientName, expectedIssuer: credentials.issuer })
      : new PrivateKeyJwtProvider({ clientId: credentials.clientId, privateKey: credentials.privateKey, algorithm: credentials.algorithm, scope: credentials.scope, clientName, expectedIssuer: credentials.issuer });
  return new ClientCredentialsAuth(provider, undefined, ['clientSecret' in credentials ? credentials.clientSecret : credentials.privateKey]);
}
