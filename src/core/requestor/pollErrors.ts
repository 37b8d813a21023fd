/**
 * Which `tasks/get` failures are permanent: the same request sent again gets the same answer, so
 * polling on would only retry silently. Such a failure ends the task at once (phase `error`) with
 * a message naming the server and the error.
 *
 * Permanent:
 * - JSON-RPC -32700 parse error, -32600 invalid request, -32601 method not found, and the Tasks
 *   extension's -32020 HeaderMismatch (§Streamable HTTP: Routing Headers) and -32021 missing
 *   required client capability (§Capability Negotiation). (-32602 is "task unknown": expired or
 *   lost, handled before this.)
 * - An HTTP 4xx answer over Streamable HTTP (a 400 HeaderMismatch, 405, 413, 415, 422, …), except
 *   401/403 (authorization: the connection asks to sign in), 404 (the session is gone: the
 *   connection reconnects), 408 and 429 (try again later).
 *
 * Transient (polling goes on as before: network errors with a growing delay until the connection
 * notices; anything else at the poll interval, ending after `maxPollFailures` in a row): a dropped
 * connection, a timeout (-32001), -32603 internal error (a server's store or a backend that
 * failed for a moment: §Task Polling has the requestor keep polling a working task), other
 * server-defined codes, HTTP 5xx, and an invalid answer.
 */
import { ErrorCode, ProtocolError } from '../base/errors.js';
import { SdkHttpError } from '../base/protocolErrors.js';

/** The Tasks extension's HeaderMismatch: a routing header missing or not matching the body (HTTP 400). */
export const HEADER_MISMATCH = -32020;
/** The Tasks extension's Missing Required Client Capability. */
const MISSING_CAPABILITY = -32021;

const PERMANENT_CODES: ReadonlyMap<number, string> = new Map([
  [ErrorCode.ParseError, 'parse error'],
  [ErrorCode.InvalidRequest, 'invalid request'],
  [ErrorCode.MethodNotFound, 'method not found'],
  [HEADER_MISMATCH, 'header mismatch'],
  [MISSING_CAPABILITY, 'missing required client capability'],
]);

const TRANSIENT_HTTP = new Set([401, 403, 404, 408, 429]);

/**
 * A one-line description of a permanent `tasks/get` failure ("HTTP 400, JSON-RPC -32020 (header
 * mismatch): Header mismatch: …"), or undefined when asking again may succeed.
 */
export function permanentPollError(e: unknown): string | undefined {
  if (e instanceof ProtocolError) {
    const name = PERMANENT_CODES.get(e.code);
    return name === undefined ? undefined : `JSON-RPC ${e.code} (${name}): ${short(withoutPrefix(e.message, /^MCP error -?\d+: /))}`;
  }
  if (e instanceof SdkHttpError && e.status >= 400 && e.status < 500 && !TRANSIENT_HTTP.has(e.status)) {
    const body = typeof e.data.text === 'string' ? e.data.text.trim() : withoutPrefix(e.message, /^Error POSTing to endpoint: /);
    const rpc = jsonRpcError(body);
    if (!rpc) return `HTTP ${e.status}${body ? `: ${short(body)}` : ''}`;
    const name = PERMANENT_CODES.get(rpc.code);
    return `HTTP ${e.status}, JSON-RPC ${rpc.code}${name ? ` (${name})` : ''}: ${short(rpc.message)}`;
  }
  return undefined;
}

/** The message for a task ended by a permanent `tasks/get` failure. */
export function permanentPollErrorMessage(serverName: string, description: string): string {
  return `"${serverName}" refused tasks/get for this task (${description}); asking again would get the same answer, so it is no longer polled.`;
}

/** Server-controlled text, cut to one readable line's worth. */
function short(s: string): string {
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

function withoutPrefix(message: string, prefix: RegExp): string {
  return message.replace(prefix, '').trim();
}

/** The `error` of a JSON-RPC error response body, when the HTTP answer carried one. */
function jsonRpcError(body: string): { code: number; message: string } | undefined {
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof error?.code === 'number') return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
  } catch {
    // not JSON: described as text
  }
  return undefined;
}
