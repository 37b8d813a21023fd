/**
 * OAuth for the headless client: authorization code + PKCE through the same core as the
 * extension (secrets in memory for the run, the loopback redirect), the browser replaced by
 * fetch following redirects ({@link followAuthorizationRedirects}); or an authorization without
 * a browser, from the credentials the conformance runner passes in `MCP_CONFORMANCE_CONTEXT`:
 *
 * - `idp_id_token` (+ `idp_token_endpoint` or `idp_issuer`, `idp_client_id`, `client_id`,
 *   `client_secret`): enterprise-managed authorization (cross-app access);
 * - `valid_jwt` + `client_id`: workload identity (the JWT-bearer grant);
 * - `client_id` + `private_key_pem` (+ `signing_algorithm`): client credentials with a JWT assertion;
 * - `client_id` + `client_secret`: client credentials when the scenario is a client-credentials
 *   one, else a pre-registered client for the authorization code flow.
 */
import type { ServerDefinition } from '../core/config/config.js';
import { clientCredentialsAuth, serverAuthFor } from '../core/connection/auth/authFactory.js';
import { crossAppAccessAuth, workloadIdentityAuth } from '../core/connection/auth/machineAuth.js';
import { MemorySecretStore } from '../core/connection/auth/secretStore.js';
import type { ServerAuth } from '../core/connection/auth/serverAuth.js';
import { followAuthorizationRedirects } from './browser.js';
import type { ConformanceContext } from './context.js';

export interface HeadlessAuthOptions {
  readonly clientName: string;
  readonly context: ConformanceContext;
  readonly scenario?: string;
  /** A Client ID Metadata Document URL to offer as client id. */
  readonly clientMetadataUrl?: string;
  /** How long a sign-in waits for the redirect (default 30 s: nobody is there to click). */
  readonly timeoutMs?: number;
}

/** The auth factory for the headless run. */
export function headlessAuth(options: HeadlessAuthOptions): (def: ServerDefinition) => ServerAuth | undefined {
  const ctx = options.context;
  const scenario = ctx.name ?? options.scenario ?? '';
  const { client_id: clientId, client_secret: clientSecret } = ctx;
  return (def) => {
    if (def.transport.type !== 'http') return undefined;
    if (ctx.idp_id_token && clientId && clientSecret && ctx.idp_client_id && (ctx.idp_token_endpoint || ctx.idp_issuer)) {
      const idToken = ctx.idp_id_token;
      const idp = ctx.idp_token_endpoint ? { tokenEndpoint: ctx.idp_token_endpoint } : { issuer: ctx.idp_issuer! };
      return crossAppAccessAuth({ idp, idToken: () => idToken, idpClientId: ctx.idp_client_id, idpClientSecret: ctx.idp_client_secret, clientId, clientSecret }, options.clientName);
    }
    if (ctx.valid_jwt && clientId) {
      const jwt = ctx.valid_jwt;
      return workloadIdentityAuth({ clientId, assertion: () => jwt }, options.clientName);
    }
    if (clientId && ctx.private_key_pem) {
      return clientCredentialsAuth({ clientId, privateKey: ctx.private_key_pem, algorithm: ctx.signing_algorithm ?? 'ES256' }, options.clientName);
    }
    if (clientId && clientSecret && /client-credentials/.test(scenario)) {
      return clientCredentialsAuth({ clientId, clientSecret }, options.clientName);
    }
    return serverAuthFor(def, {
      store: new MemorySecretStore(),
      clientName: options.clientName,
      clientMetadataUrl: options.clientMetadataUrl,
      openBrowser: (url) => followAuthorizationRedirects(url),
      timeoutMs: options.timeoutMs ?? 30_000,
      preRegistered: clientId ? { clientId, clientSecret } : undefined,
    });
  };
}
