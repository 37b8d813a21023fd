/**
 * Validation of every input of the extension API (zod): a failure names the field. In the protocol
 * part (scripts/lib/lazyParts.mjs): evaluated at the first call of another extension, not at activation.
 */
import { z } from 'zod';
import { TaskApiError } from './apiErrors.js';

import { URI_SCHEME } from './taskUris.js';

export { URI_SCHEME, taskUri } from './taskUris.js';

const PRIORITY = z.enum(['low', 'normal', 'high', 'urgent']);
const STATE = z.enum(['queued', 'sending', 'working', 'input_required', 'paused', 'orphaned', 'completed', 'failed', 'cancelled', 'expired', 'error']);

export const requestSchema = z.strictObject({
  server: z.string().min(1).max(200),
  method: z.literal('tools/call', { error: 'only "tools/call" is supported' }),
  params: z.strictObject({
    name: z.string().min(1).max(500),
    arguments: z.record(z.string(), z.unknown()).optional(),
    _meta: z.never({ error: '_meta is set by the host' }).optional(),
  }),
  hint: z
    .strictObject({
      estimatedDurationMs: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
      supportsProgress: z.boolean().optional(),
      cancellable: z.boolean().optional(),
    })
    .optional(),
  priority: PRIORITY.optional(),
});

export const filterSchema = z
  .strictObject({
    server: z.string().min(1).max(200).optional(),
    direction: z.enum(['sent', 'received', 'both']).optional(),
    states: z.array(STATE).max(20).optional(),
    mine: z.boolean().optional(),
  })
  .optional();

/** `publisher.name` as in package.json (VS Code extension ids). */
export const extensionIdSchema = z
  .string()
  .min(3)
  .max(256)
  .regex(/^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$/i, 'an extension id "publisher.name"');

/** `mcp-task://<server>/<direction>/<id>`. */
export const uriSchema = z
  .string()
  .max(2000)
  .transform((s, ctx) => {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a URI' });
      return z.NEVER;
    }
    const parts = u.pathname.split('/').slice(1);
    if (u.protocol !== `${URI_SCHEME}:` || !u.hostname || parts.length !== 2 || (parts[0] !== 'sent' && parts[0] !== 'received') || !parts[1] || u.search || u.hash) {
      ctx.addIssue({ code: 'custom', message: `not a task URI ${URI_SCHEME}://<server>/sent|received/<id>` });
      return z.NEVER;
    }
    return { server: decodeURIComponent(u.hostname), direction: parts[0] as 'sent' | 'received', id: decodeURIComponent(parts[1]) };
  });

/** Parses `value` or throws `invalid_input` naming `what` and the first problem. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = issue?.path.length ? `${what}.${issue.path.join('.')}` : what;
  throw new TaskApiError('invalid_input', `Invalid ${path}: ${issue?.message ?? 'invalid value'}`);
}
