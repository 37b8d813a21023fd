/**
 * The 2026-07-28 `tools/call` of a host client over stdio, sent and answered here rather than through
 * the SDK `Client`'s request machinery: the host's main request, made for every call a user, the chat
 * agent or another extension starts.
 *
 * Why: over stdio the SDK's `callTool` spends most of its time on what this host does not need for
 * the call — the response cache probed for the tool's output schema and again for its `Mcp-Param-*`
 * header declarations (headers a pipe cannot carry), the send options rebuilt, a timer for a timeout the
 * host sets at "never" (a task may run for days), the result's standard-schema check wrapped in a
 * promise — and the SDK code it runs is shared with every other request, so each of it is slower
 * (bench: rev2026 tools/call, host CPU per call; bench/README.md section 8, "Eleventh look").
 *
 * What it keeps, word for word where the SDK has words:
 * - the request: an id from the client's own counter (one id space per session, so a reattached
 *   stdio session still numbers after the window before it: sdkInternals.ts), the era's `_meta`
 *   envelope (the host client's), the caller's `_meta`, the progress token (the id, as the SDK gives);
 * - the answer: the era's decoding (`resultType`), the era's `tools/call` result check, the SDK's
 *   errors (`ProtocolError` from an error answer, `SdkError` for an invalid result, a closed
 *   connection, an abort or a timeout);
 * - the `input_required` rounds: handed to the host client's `_resolveNonCompleteResult`, as the
 *   SDK's funnel hands them, with each retry sent here (roundOwner.ts);
 * - cancel: `notifications/cancelled` for the request, and the call rejected with the signal's reason;
 * - the tool's output schema (the last full `tools/list`, or the caller's `toolDefinition`), compiled
 *   once per definition by the client's JSON Schema validator, with the SDK's three refusals.
 *
 * Anything else — another era, HTTP (its `Mcp-Param-*` headers and their mismatch retry are the SDK's),
 * an option this path does not read, an SDK without the id counter — stays with the SDK's `callTool`
 * ({@link ToolCalls2026.covers}).
 */
import {
  DEFAULT_REQUEST_TIMEOUT_MSEC,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type CallToolRequest,
  type CallToolRequestOptions,
  type CallToolResult,
  type JSONRPCResponse,
  type JsonSchemaValidator,
  type Progress,
  type ProgressCallback,
  type Tool,
  type Transport,
  type jsonSchemaValidator,
} from '@modelcontextprotocol/client';
import { MAX_TIMER_DELAY_MS } from '../config/limits.js';

type Params = CallToolRequest['params'];

/** What the host client's codec makes of a result (the SDK's `WireCodec.decodeResult`). */
export type DecodedAnswer =
  | { readonly kind: 'complete'; readonly result: Record<string, unknown> }
  | { readonly kind: 'input_required'; readonly inputRequests: Record<string, unknown>; readonly requestState?: string; readonly _meta?: Record<string, unknown> }
  | { readonly kind: 'invalid'; readonly error: Error };

/** The first `input_required` answer of a call, as the SDK's funnel hands it to `_resolveNonCompleteResult`. */
export interface RoundsFlow {
  readonly request: { readonly method: 'tools/call'; readonly params: Params };
  readonly options: CallToolRequestOptions | undefined;
  readonly flowStartedAt: number;
  retry(params: Params | undefined, legOptions: CallToolRequestOptions): Promise<unknown>;
}

/** What the host client gives its own tool calls (hostClient.ts). */
export interface ToolCallPort {
  /** The connected transport, or undefined once closed. */
  transport(): Transport | undefined;
  /** The next request id of the client's counter. */
  nextId(): number;
  /** The era's `_meta` envelope of every request. */
  envelope(): Readonly<Record<string, unknown>> | undefined;
  /** The era's decoding of a result. */
  decode(result: unknown): DecodedAnswer;
  /** The era's `tools/call` result check: the checked result, or the refusal's message. */
  check(result: unknown): { readonly ok: true; readonly value: CallToolResult } | { readonly ok: false; readonly message: string };
  /** The rounds of a call answered `input_required` (the host client's `_resolveNonCompleteResult`). */
  rounds(decoded: Extract<DecodedAnswer, { kind: 'input_required' }>, flow: RoundsFlow): Promise<unknown>;
  /** Where a failure with no caller to tell is reported (the client's `onerror`). */
  onerror(error: Error): void;
}

/** A call waiting for its answer. */
interface Waiting {
  answered(response: JSONRPCResponse): void;
  closed(error: Error): void;
  readonly onprogress: ProgressCallback | undefined;
}

/** A tool's output schema, compiled: the validator, or why it could not be. */
type Compiled = { readonly ok: true; readonly validator: JsonSchemaValidator<unknown> } | { readonly ok: false; readonly error: unknown };

/** Options of the SDK's `callTool` this path does not read: a call that names any goes to the SDK. */
const SDK_ONLY_OPTIONS = ['relatedRequestId', 'resumptionToken', 'onresumptiontoken', 'headers', 'maxTotalTimeout', 'resetTimeoutOnProgress', 'task', 'relatedTask'] as const;

/** The own `tools/call` requests of one host client (see the file's comment). */
export class ToolCalls2026 {
  private readonly _waiting = new Map<number, Waiting>();
  /** The tools of the last full `tools/list`, by name; undefined: none listed since connecting or since the list changed. */
  private _listed: Map<string, Tool> | undefined;
  private readonly _compiled = new WeakMap<Tool, Compiled>();

  constructor(
    private readonly _port: ToolCallPort,
    private readonly _validators: jsonSchemaValidator,
  ) {}

  /** Whether a call with `options` on `transport` is sent here: stdio, and only options this path reads. */
  static covers(transport: Transport | undefined, options: CallToolRequestOptions | undefined): boolean {
    if (!transport || !('pid' in transport && 'stderr' in transport)) return false;
    if (!options) return true;
    for (const name of SDK_ONLY_OPTIONS) if ((options as Record<string, unknown>)[name] !== undefined) return false;
    return true;
  }

  /** The tools of a full `tools/list` (what the SDK keeps in its response cache for the same check). */
  listed(tools: readonly Tool[]): void {
    this._listed = new Map(tools.map((t) => [t.name, t]));
  }

  /** The server's tools changed (`notifications/tools/list_changed`): no definition is trusted until listed again. */
  toolsChanged(): void {
    this._listed = undefined;
  }

  /** The call: its result checked on the era's schema and the tool's output schema, its rounds driven by its owner. */
  async call(params: Params, options: CallToolRequestOptions | undefined): Promise<CallToolResult> {
    const definition = options?.toolDefinition ?? this._listed?.get(params.name);
    const validator = definition ? this._validatorOf(definition) : undefined;
    const result = (await this._send(params, options, Date.now())) as CallToolResult;
    if (validator && !result.isError) checkStructured(params.name, validator, result);
    return result;
  }

  /** Hands `response` to its call; false when no call here waits for it (the SDK's then). */
  answer(response: JSONRPCResponse): boolean {
    if (this._waiting.size === 0) return false;
    const waiting = this._waiting.get(typeof response.id === 'number' ? response.id : Number(response.id));
    if (!waiting) return false;
    waiting.answered(response);
    return true;
  }

  /** Hands a `notifications/progress` to its call; false when its token is none of the calls' here. */
  progress(params: { readonly progressToken?: unknown; readonly progress?: unknown; readonly total?: unknown; readonly message?: unknown } | undefined): boolean {
    if (this._waiting.size === 0 || typeof params?.progressToken !== 'number') return false;
    const waiting = this._waiting.get(params.progressToken);
    // What is not a progress (the SDK's schema: a number, an optional number and text) goes on to the SDK, which refuses it.
    if (!waiting?.onprogress || typeof params.progress !== 'number' || (params.total !== undefined && typeof params.total !== 'number') || (params.message !== undefined && typeof params.message !== 'string')) return false;
    const progress: Progress = {
      progress: params.progress,
      ...(params.total !== undefined ? { total: params.total as number } : {}),
      ...(params.message !== undefined ? { message: params.message as string } : {}),
    };
    waiting.onprogress(progress);
    return true;
  }

  /** The connection closed: every call waiting fails as the SDK's requests do. */
  closed(): void {
    if (this._waiting.size === 0) return;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    for (const waiting of [...this._waiting.values()]) waiting.closed(error);
  }

  /** One leg: the request sent, its answer decoded and checked; `input_required` goes to the rounds' owner (or back, for a retry). */
  private _send(params: Params, options: CallToolRequestOptions | undefined, flowStartedAt: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const port = this._port;
      const transport = port.transport();
      if (!transport) return reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
      const signal = options?.signal;
      if (signal?.aborted) return reject(abortError(signal.reason));
      const id = port.nextId();
      const onprogress = options?.onprogress;
      const meta = { ...port.envelope(), ...params._meta, ...(onprogress ? { progressToken: id } : {}) };
      const message = { method: 'tools/call' as const, params: { ...params, _meta: meta }, jsonrpc: '2.0' as const, id };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        this._waiting.delete(id);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: unknown) => {
        done();
        const notice = { jsonrpc: '2.0' as const, method: 'notifications/cancelled' as const, params: { requestId: id, reason: String(reason), _meta: { ...port.envelope() } } };
        port
          .transport()
          ?.send(notice)
          .catch((e: unknown) => port.onerror(new Error(`Failed to send cancellation: ${String(e)}`)));
        reject(abortError(reason));
      };
      const onAbort = () => cancel(signal!.reason);
      this._waiting.set(id, {
        onprogress,
        closed: (error) => {
          done();
          reject(error);
        },
        answered: (response) => {
          done();
          if ('error' in response) return reject(ProtocolError.fromError(response.error.code, response.error.message, response.error.data));
          try {
            resolve(this._answered(response.result, params, options, flowStartedAt));
          } catch (e) {
            reject(e);
          }
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      // The host's calls have no timeout (MAX_TIMER_DELAY_MS: a task may run for days); any shorter one is the SDK's.
      const timeout = options?.timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC;
      if (timeout < MAX_TIMER_DELAY_MS) timer = setTimeout(() => cancel(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout })), timeout);
      transport.send(message).catch((e: unknown) => {
        done();
        reject(e);
      });
    });
  }

  /** A result answer: complete (checked), `input_required` (the owner's rounds, or handed back to a retry), or the era's refusal. */
  private _answered(raw: unknown, params: Params, options: CallToolRequestOptions | undefined, flowStartedAt: number): unknown {
    const decoded = this._port.decode(raw);
    switch (decoded.kind) {
      case 'invalid':
        throw decoded.error;
      case 'input_required': {
        if (options?.allowInputRequired === true) {
          return {
            resultType: 'input_required',
            inputRequests: decoded.inputRequests,
            ...(decoded.requestState !== undefined ? { requestState: decoded.requestState } : {}),
            ...(decoded._meta !== undefined ? { _meta: decoded._meta } : {}),
          };
        }
        return this._port.rounds(decoded, {
          request: { method: 'tools/call', params },
          options,
          flowStartedAt,
          retry: (next, legOptions) => this._send(next ?? { name: params.name }, legOptions, flowStartedAt),
        });
      }
      case 'complete': {
        const checked = this._port.check(decoded.result);
        if (!checked.ok) throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${checked.message}`);
        return checked.value;
      }
      default:
        return assertNever(decoded);
    }
  }

  /** The tool's output-schema validator, compiled once per definition; throws the SDK's refusal for a schema that does not compile. */
  private _validatorOf(tool: Tool): JsonSchemaValidator<unknown> | undefined {
    if (!tool.outputSchema) return undefined;
    let compiled = this._compiled.get(tool);
    if (!compiled) {
      try {
        compiled = { ok: true, validator: this._validators.getValidator(tool.outputSchema as Parameters<jsonSchemaValidator['getValidator']>[0]) };
      } catch (error) {
        compiled = { ok: false, error };
      }
      this._compiled.set(tool, compiled);
    }
    if (compiled.ok) return compiled.validator;
    const message = (compiled.error instanceof Error ? compiled.error.message : String(compiled.error)).slice(0, 200);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool '${tool.name}' has an invalid outputSchema: ${message}`);
  }
}

/** The SDK's checks of a tool result against the tool's output schema, in its words. */
function checkStructured(name: string, validator: JsonSchemaValidator<unknown>, result: CallToolResult): void {
  if (result.structuredContent === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Tool ${name} has an output schema but did not return structured content`);
  let verdict: ReturnType<JsonSchemaValidator<unknown>>;
  try {
    verdict = validator(result.structuredContent);
  } catch (error) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!verdict.valid) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
}

/** What an aborted request rejects with (the SDK's words: an `SdkError` as it is, anything else as a timeout naming it). */
function abortError(reason: unknown): Error {
  return reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}

function assertNever(value: never): never {
  throw new Error(`unknown decoded answer: ${JSON.stringify(value)}`);
}
