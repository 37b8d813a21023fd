/** How a task ended, on either side (received or sent); re-exported by receiver/ledgerTypes.ts. */
import type { Result } from '@modelcontextprotocol/client';
import { ProtocolError, errorCodeOf, errorMessage, withoutMcpPrefix } from './errors.js';

/** What a task ended with: the result the plain request would have had, or its JSON-RPC error (R-RESULT-1). */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: Result }
  | { readonly kind: 'error'; readonly code: number; readonly message: string; readonly data?: unknown };

/** Turns a thrown value into the JSON-RPC error a plain request would have returned. */
export function errorOutcome(e: unknown): TaskOutcome {
  if (e instanceof ProtocolError) return { kind: 'error', code: e.code, message: withoutMcpPrefix(e.message), data: e.data };
  return { kind: 'error', code: errorCodeOf(e), message: errorMessage(e) };
}
