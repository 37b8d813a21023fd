/** How a task ended, on either side (received or sent); re-exported by receiver/ledgerTypes.ts. */
import type { Result } from '@modelcontextprotocol/client';
import { ProtocolError, SdkError, SdkErrorCode, errorCodeOf, errorMessage, withoutMcpPrefix } from './errors.js';

/** What a task ended with: the result the plain request would have had, or its JSON-RPC error (R-RESULT-1). */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: Result }
  | { readonly kind: 'error'; readonly code: number; readonly message: string; readonly data?: unknown };

/** Turns a thrown value into the JSON-RPC error a plain request would have returned. */
export function errorOutcome(e: unknown): TaskOutcome {
  if (e instanceof ProtocolError) return { kind: 'error', code: e.code, message: withoutMcpPrefix(e.message), data: e.data };
  return { kind: 'error', code: errorCodeOf(e), message: abortedMessage(e) ?? errorMessage(e) };
}

/**
 * The reason of a request aborted here, as said. The SDK rejects it with `String(signal.reason)`,
 * so an Error reason ("cancelled by the user") reads "Error: cancelled by the user" — a row then
 * showed `cancelled: Error: cancelled by the user`.
 */
function abortedMessage(e: unknown): string | undefined {
  if (!(e instanceof SdkError) || e.code !== SdkErrorCode.RequestTimeout) return undefined;
  return /^Error: /.test(e.message) ? e.message.slice('Error: '.length) : undefined;
}
