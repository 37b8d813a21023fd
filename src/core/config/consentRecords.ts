/**
 * The stored approvals checked (consent.ts keeps them): a damaged entry is dropped, i.e. asked
 * again. In the protocol part (scripts/lib/lazyParts.mjs): zod is evaluated at the first stored
 * approval read, not at activation.
 */
import { z } from 'zod';
import type { ConsentRecord } from './consent.js';

const recordSchema = z.object({
  kind: z.enum(['firstStart', 'sampling']),
  fingerprint: z.string().min(1),
  serverName: z.string(),
  sourceFile: z.string(),
  grantedAt: z.number(),
  model: z.string().optional(),
});
const storedSchema = z.object({ version: z.literal(1), records: z.array(z.unknown()) });

/** The valid records of the stored value (none if the value itself is not the store's). */
export function validConsentRecords(stored: unknown): ConsentRecord[] {
  const parsed = storedSchema.safeParse(stored);
  if (!parsed.success) return [];
  const out: ConsentRecord[] = [];
  for (const raw of parsed.data.records) {
    const r = recordSchema.safeParse(raw);
    if (r.success) out.push(r.data);
  }
  return out;
}
