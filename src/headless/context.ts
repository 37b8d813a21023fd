/**
 * What the conformance runner hands a client besides the server URL: `MCP_CONFORMANCE_CONTEXT`,
 * a JSON object whose fields depend on the scenario (credentials, the calls to make). Every field
 * is optional; a context that is not a JSON object, or has a field of the wrong type, is a usage
 * error naming the field.
 */
import { z } from 'zod';

const ContextSchema = z
  .object({
    name: z.string().optional(),
    // Client credentials, a pre-registered client, or this client at the authorization server (enterprise-managed).
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    private_key_pem: z.string().optional(),
    signing_algorithm: z.string().optional(),
    // Enterprise-managed authorization: the user's ID token and this client at the enterprise IdP.
    idp_id_token: z.string().optional(),
    idp_issuer: z.string().optional(),
    idp_token_endpoint: z.string().optional(),
    idp_client_id: z.string().optional(),
    idp_client_secret: z.string().optional(),
    // Workload identity: the JWT the platform issued to the workload.
    valid_jwt: z.string().optional(),
    // The calls a scenario wants made, with exactly these arguments.
    toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() })).optional(),
  })
  .passthrough();

export type ConformanceContext = z.infer<typeof ContextSchema>;

/** The parsed context (empty without one); throws a readable error on a malformed one. */
export function parseContext(raw: string | undefined): ConformanceContext {
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new Error(`MCP_CONFORMANCE_CONTEXT is not JSON: ${(e as Error).message}`);
  }
  const r = ContextSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`MCP_CONFORMANCE_CONTEXT${issue?.path.length ? ` field ${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`);
  }
  return r.data;
}

/** The arguments the context names per tool (`toolCalls`), to use instead of generated ones. */
export function toolArgsOf(context: ConformanceContext): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const call of context.toolCalls ?? []) out[call.name] = call.arguments ?? {};
  return out;
}
