/**
 * OAuth for the headless client: authorization code + PKCE through the same core as the
 * extension (secrets in memory for the run, the loopback redirect), the browser replaced by
 * fetch following redirects ({@link followAuthorizationRedirects}); or client credentials.
 *
 * Credentials come as the conformance runner passes them, in `MCP_CONFORMANCE_CONTEXT` (JSON):
 * `client_id` + `private_key_pem` (+ `signing_algorithm`): client credentials with a JWT
 * assertion; `client_id` + `client_secret`: client credentials when the scenario is a
 * client-credentials one, else a pre-registered client for the authorization code flow.
 */
import { z } from 'zod';
import type { ServerDefinition } from '../core/config/config.js';
import { clientCredentialsAuth, serverAuthFor } from '../core/connection/auth/authFactory.js';
import { MemorySecretStore } from '../core/connection/auth/secretStore.js';
import type { ServerAuth } from '../core/connection/auth/serverAuth.js';
import { followAuthorizationRedirects } from './browser.js';

const ContextSchema = z
  .object({
    name: z.string().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    private_key_pem: z.string().optional(),
    signing_algorithm: z.string().optional(),
  })
  .passthrough();

export interface HeadlessAuthOptions {
  readonly clientName: string;
  /** `MCP_CONFORMANCE_CONTEXT`, raw. */
  readonly context?: string;
  readonly scenario?: string;
  /** A Client ID Metadata Document URL to offer as client id. */
  readonly clientMetadataUrl?: string;
  /** How long a sign-in waits for the redirect (default 30 s: nobody is there to click). */
  readonly timeoutMs?: number;
}

/** The auth factory for the headless run; throws a readable error on a malformed context. */
export function headlessAuth(options: HeadlessAuthOptions): (def: ServerDefinition) => ServerAuth | undefined {
  let ctx: z.infer<typeof ContextSchema> = {};
  if (options.context) {
    let raw: unknown;
    try {
      raw = JSON.parse(options.context);
    } catch (e) {
      throw new Error(`MCP_CONFORMANCE_CONTEXT is not JSON: ${(e as Error).message}`);
    }
    const r = ContextSchema.safeParse(raw);
    if (!r.success) throw new Error(`MCP_CONFORMANCE_CONTEXT: ${r.error.issues[0]?.message ?? 'invalid'}`);
    ctx = r.data;
  }
  const scenario = ctx.name ?? options.scenario ?? '';
  return (def) => {
    if (def.transport.type !== 'http') return undefined;
    if (ctx.client_id && ctx.private_key_pem) {
      return clientCredentialsAuth({ clientId: ctx.client_id, privateKey: ctx.private_key_pem, algorithm: ctx.signing_algorithm ?? 'ES256' }, options.clientName);
    }
    if (ctx.client_id && ctx.client_secret && /client-credentials/.test(scenario)) {
      return clientCredentialsAuth({ clientId: ctx.client_id, clientSecret: ctx.client_secret }, options.clientName);
    }
    return serverAuthFor(def, {
      store: new MemorySecretStore(),
      clientName: options.clientName,
      clientMetadataUrl: options.clientMetadataUrl,
      openBrowser: (url) => followAuthorizationRedirects(url),
      timeoutMs: options.timeoutMs ?? 30_000,
      preRegistered: ctx.client_id ? { clientId: ctx.client_id, clientSecret: ctx.client_secret } : undefined,
    });
  };
}
