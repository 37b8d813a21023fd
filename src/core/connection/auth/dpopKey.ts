/**
 * The DPoP key of one server's registration at one authorization server (RFC 9449, the MCP DPoP
 * extension). The SDK signs every proof with a `DpopSession`; this module only decides whether
 * there is one and keeps its key. A DPoP-bound access or refresh token is useless without the key
 * it was bound to, so the key lives beside those tokens in the {@link SecretStore} record: after a
 * window reload the refresh still works and nobody is asked to sign in again. Sign Out forgets it
 * with the rest of the record.
 *
 * Only an authorization server that says it takes DPoP proofs (`dpop_signing_alg_values_supported`
 * with ES256) gets them; every other one sees exactly the Bearer flow as before.
 */
import { webcrypto } from 'node:crypto';
import { DpopSession, generateDpopKeyPair, type AuthorizationServerMetadata, type DpopKeyPair } from '@modelcontextprotocol/client';
import { z } from 'zod';

/** The one proof algorithm this host signs with (every DPoP authorization server must accept some asymmetric one; ES256 is the common one). */
const ALG = 'ES256';
const EC_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** A key as kept in the store: its public and private JWK. */
const StoredKeySchema = z.object({
  alg: z.literal(ALG),
  thumbprint: z.string(),
  publicJwk: z.record(z.string(), z.unknown()),
  privateJwk: z.record(z.string(), z.unknown()),
});
export type StoredDpopKey = z.infer<typeof StoredKeySchema>;

/** Whether the authorization server takes DPoP proofs this host can sign. */
export function wantsDpop(metadata: AuthorizationServerMetadata | undefined): boolean {
  // (An OpenID Provider's metadata type does not name the field; a metadata document may still carry it.)
  const algs: unknown = metadata && 'dpop_signing_alg_values_supported' in metadata ? metadata.dpop_signing_alg_values_supported : undefined;
  return Array.isArray(algs) && algs.includes(ALG);
}

/** A new key pair and the form it is kept in. */
export async function newDpopKey(): Promise<{ session: DpopSession; stored: StoredDpopKey }> {
  // Extractable: the private key has to reach the store to outlive this window (see above).
  const pair = await generateDpopKeyPair({ alg: ALG, extractable: true });
  const privateJwk = (await webcrypto.subtle.exportKey('jwk', pair.privateKey as webcrypto.CryptoKey)) as Record<string, unknown>;
  const stored: StoredDpopKey = { alg: ALG, thumbprint: pair.thumbprint, publicJwk: pair.publicJwk as Record<string, unknown>, privateJwk };
  return { session: await DpopSession.create({ keyPair: pair }), stored };
}

/** The session of a kept key; undefined when what is kept is not a key this host made. */
export async function dpopSessionOf(value: unknown): Promise<DpopSession | undefined> {
  const parsed = StoredKeySchema.safeParse(value);
  if (!parsed.success) return undefined;
  const k = parsed.data;
  try {
    const privateKey = await webcrypto.subtle.importKey('jwk', k.privateJwk as webcrypto.JsonWebKey, EC_PARAMS, false, ['sign']);
    const publicKey = await webcrypto.subtle.importKey('jwk', k.publicJwk as webcrypto.JsonWebKey, EC_PARAMS, true, ['verify']);
    const keyPair = { privateKey, publicKey, publicJwk: k.publicJwk, thumbprint: k.thumbprint, alg: ALG } as unknown as DpopKeyPair;
    return await DpopSession.create({ keyPair });
  } catch {
    return undefined;
  }
}
