/**
 * The depth bound on what a server sends, applied where its messages arrive: the first wrapper
 * around the raw transport, before tracing, the SDK's parsing and every consumer (the tracker's
 * snapshots, the Tasks view, the API, chat tools, forms). Size is bounded below it already (10 MB a
 * message: the SDK's stdio buffer, `boundedFetch` for HTTP); depth is not, and one result nested a
 * few thousand levels deep (10–20 KB) made every `structuredClone` of it throw (base/jsonDepth.ts).
 *
 * A message nested deeper than {@link MAX_JSON_DEPTH} is never delivered:
 * - an answer to one of our requests becomes a JSON-RPC error answer to that request (code -32700,
 *   the reason in its message and `data.refusedByHost`), so the call that waited for it ends
 *   at once with a reason the user sees — a tool call's result, a `tasks/get`, `tools/list`;
 * - a request from the server is answered -32602 here and never dispatched;
 * - a notification is dropped.
 * Each refusal is reported through `onerror` (the connection logs it, throttled, as a protocol error).
 *
 * An `input_required` answer (2026-07-28) whose `requestState` is longer than
 * {@link MAX_REQUEST_STATE_CHARS} is refused the same way: the SDK echoes that state back, byte for
 * byte, on every round, so a server that doubles it each round had this host upload megabytes per
 * retry until one message broke the 10 MB limit and the whole connection closed (stdio), taking
 * every other call on it down. Refused, only the call that asked fails, with the reason.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { type JSONRPCMessage } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError } from '../base/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../base/jsonDepth.js';
import { MAX_REQUEST_STATE_CHARS } from '../config/limits.js';
import { mirrorStdioShape } from './tracing.js';

/** Why a message was refused, as its answer and its log line say it. */
export function tooDeepReason(what: string, limit = MAX_JSON_DEPTH): string {
  return `this host refused ${what}: it nests arrays and objects more than ${limit} levels deep`;
}

/** Why an `input_required` answer was refused for the size of its `requestState`. */
export function requestStateReason(length: number, limit = MAX_REQUEST_STATE_CHARS): string {
  return `this host refused the answer: its requestState is ${length.toLocaleString('en-US')} characters, over the ${limit.toLocaleString('en-US')}-character limit (it would be sent back on every input_required round)`;
}

/** The length of an `input_required` answer's `requestState` when it is over `limit`; else undefined. */
function oversizedRequestState(message: JSONRPCMessage, limit: number): number | undefined {
  const { id, result } = message as { id?: unknown; result?: { resultType?: unknown; requestState?: unknown } };
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof result !== 'object' || result === null || result.resultType !== 'input_required') return undefined;
  return typeof result.requestState === 'string' && result.requestState.length > limit ? result.requestState.length : undefined;
}

/** Whether `e` is the error an answer refused by {@link MessageBoundsTransport} became (not the server's own error). */
export function isRefusedByHost(e: unknown): boolean {
  return e instanceof ProtocolError && (e.data as { refusedByHost?: unknown } | undefined)?.refusedByHost === true;
}

export class MessageBoundsTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly _inner: Transport,
    private readonly _limit = MAX_JSON_DEPTH,
    private readonly _requestStateLimit = MAX_REQUEST_STATE_CHARS,
  ) {
    _inner.onclose = () => this.onclose?.();
    _inner.onerror = (e) => this.onerror?.(e);
    _inner.onmessage = (message, extra) => {
      if (nestsDeeperThan(message, this._limit)) return this._refuse(message, extra);
      const stateLength = oversizedRequestState(message, this._requestStateLimit);
      if (stateLength !== undefined) return this._refuseAnswer(message, extra, requestStateReason(stateLength, this._requestStateLimit), { maxRequestStateChars: this._requestStateLimit });
      this.onmessage?.(message, extra);
    };
    mirrorStdioShape(this, _inner);
  }

  get sessionId(): string | undefined {
    return this._inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this._inner.hasPerRequestStream;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this._inner.setSupportedProtocolVersions?.(versions);
  }

  start(): Promise<void> {
    return this._inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this._inner.send(message, options);
  }

  close(): Promise<void> {
    return this._inner.close();
  }

  setProtocolVersion(version: string): void {
    this._inner.setProtocolVersion?.(version);
  }

  private _refuse(message: JSONRPCMessage, extra: Parameters<NonNullable<Transport['onmessage']>>[1]): void {
    const m = message as { id?: unknown; method?: unknown };
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
    const method = typeof m.method === 'string' ? m.method.slice(0, 100) : undefined;
    if (method === undefined && id !== undefined) return this._refuseAnswer(message, extra, tooDeepReason('the answer'), { maxDepth: this._limit });
    const reason = tooDeepReason(method === undefined ? 'a message' : `the ${method} ${id === undefined ? 'notification' : 'request'}`);
    this.onerror?.(new Error(reason));
    if (method !== undefined && id !== undefined) {
      this._inner.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: reason } }).catch((e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))));
    }
  }

  /** An answer: the request that waits for it fails with the reason, instead of never hearing back. */
  private _refuseAnswer(message: JSONRPCMessage, extra: Parameters<NonNullable<Transport['onmessage']>>[1], reason: string, data: Record<string, unknown>): void {
    const id = (message as { id: string | number }).id;
    this.onerror?.(new Error(`${reason} (id ${String(id).slice(0, 100)})`));
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ErrorCode.ParseError, message: reason, data: { refusedByHost: true, ...data } } }, extra);
  }
}
