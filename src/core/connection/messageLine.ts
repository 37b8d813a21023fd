/**
 * One line of newline-delimited JSON-RPC from a server (a stdio process's stdout, the server host's
 * pipe) read as a message, with the SDK's own message schemas and the same verdict as the SDK's
 * `deserializeMessage`.
 *
 * The SDK's message schema is a union tried in order: request, notification, result, error. A
 * result — most of what a server sends a host that polls its tasks — first fails the two strict
 * request and notification schemas, and each failure builds its issue list. Here the line's own
 * shape picks the one schema that can accept it (`method` and `id`: a request; `method` alone: a
 * notification; `result`; `error`), checked with the SDK's guard for that schema. What that guard
 * refuses, and any other shape, goes through the whole union as before, so what is accepted is
 * exactly what the union accepts and a refusal is the union's own error naming every way it failed.
 * Bench: requestor host CPU (the union's two failed branches on every `tasks/get` answer).
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  parseJSONRPCMessage,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';

/** Where a read line goes. */
export interface MessageLineSink {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  /** A line that is not JSON at all (a server writing logs to stdout): the connection logs it. */
  onNoise?: (line: string) => void;
}

/** Reads `line` and hands it to `sink`: a message, a message that fails the schema (an error), or noise. */
export function deliverMessageLine(line: string, sink: MessageLineSink): void {
  let message: JSONRPCMessage;
  try {
    message = parseMessageLine(line);
  } catch (e) {
    if (e instanceof SyntaxError) sink.onNoise?.(line);
    else sink.onerror?.(e instanceof Error ? e : new Error(String(e)));
    return;
  }
  sink.onmessage?.(message);
}

/** The message on `line`; throws a `SyntaxError` for what is not JSON and the SDK's schema error for what is not JSON-RPC. */
export function parseMessageLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (guardFor(value)?.(value)) return value as JSONRPCMessage;
  return parseJSONRPCMessage(value);
}

/** The SDK guard of the one message schema `value`'s shape can meet; undefined for any other shape. */
function guardFor(value: unknown): ((v: unknown) => boolean) | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as { method?: unknown; id?: unknown; result?: unknown; error?: unknown };
  if (m.method !== undefined) return m.id !== undefined ? isJSONRPCRequest : isJSONRPCNotification;
  if (m.result !== undefined) return isJSONRPCResultResponse;
  if (m.error !== undefined) return isJSONRPCErrorResponse;
  return undefined;
}
