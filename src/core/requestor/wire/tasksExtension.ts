/**
 * The client side of the 2026-07-28 Tasks extension on the transport (modelcontextprotocol/
 * experimental-ext-tasks, specification/draft/tasks.md), for a server that declares
 * `capabilities.extensions["io.modelcontextprotocol/tasks"]`:
 *
 * - On a 2025-11-25 session (the extension riding on `initialize`) every request carries the
 *   client capability in `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`; on a
 *   2026-07-28 session the host client's per-request envelope carries it (hostClient.ts).
 * - A `CreateTaskResult` (`resultType: "task"`) answering any request but `tools/call` (the only
 *   supported method, §Supported Methods) is turned into an invalid-response error.
 * - The SDK has no word for a `tools/call` answered with a task: on a 2026-07-28 session it would
 *   refuse the answer, on a 2025 one take `resultType` off and read a tool result. The answer is kept here ({@link TaskAnswers}) and the SDK is handed an error
 *   that names it, which the task wire (requestor/wire/wire2026_07_28.ts) turns back into the task.
 *   Everything before that answer — `input_required` rounds, `Mcp-Param-*` headers — stays the SDK's.
 * - On a 2026-07-28 session a result without `resultType` is complete: servers written before the
 *   field was required leave it out, the SDK refuses such a result, and the conformance suite
 *   expects a client to accept it. It is filled in and said once in the server's log.
 */
import { withTaskCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { JSONRPCMessage, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { mirrorStdioShape } from '../../connection/tracing.js';

/** Methods a server may answer with a CreateTaskResult (§Supported Methods). */
const TASK_ELIGIBLE: ReadonlySet<string> = new Set(['tools/call']);
/** Requests awaiting an answer beyond which the oldest are forgotten (their answers then pass unchecked). */
const MAX_PENDING = 10_000;
/** Task answers not yet taken by the call that caused them, beyond which the oldest are dropped. */
const MAX_KEPT_ANSWERS = 1_000;

/** The local error code of a `tools/call` the server answered with a task (never sent on the wire). */
export const TASK_ANSWER_CODE = -32_098;

/** The CreateTaskResults the SDK could not take, kept for the call that caused each. */
export class TaskAnswers {
  private readonly _kept = new Map<string, Record<string, unknown>>();
  private _next = 0;

  /** Keeps an answer; the token goes to the call in the error that stands in for it. */
  keep(result: Record<string, unknown>): string {
    const token = `task-answer-${++this._next}`;
    this._kept.set(token, result);
    if (this._kept.size > MAX_KEPT_ANSWERS) this._kept.delete(this._kept.keys().next().value!);
    return token;
  }

  /** The answer an error stands in for (once), or undefined for any other error. */
  take(e: unknown): Record<string, unknown> | undefined {
    const err = e as { code?: unknown; data?: { taskAnswer?: unknown } } | undefined;
    if (err?.code !== TASK_ANSWER_CODE || typeof err.data?.taskAnswer !== 'string') return undefined;
    const result = this._kept.get(err.data.taskAnswer);
    this._kept.delete(err.data.taskAnswer);
    return result;
  }
}

export class TasksExtensionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private _onmessage?: Transport['onmessage'];
  private _declared = false;
  private _modern = false;
  private _missingResultTypeSaid = false;
  private readonly _pending = new Map<RequestId, string>();

  constructor(
    private readonly _inner: Transport,
    private readonly _answers: TaskAnswers,
    /** Says once that the server left `resultType` out (to the server's log). */
    private readonly _note: (message: string) => void = () => undefined,
  ) {
    _inner.onclose = () => this.onclose?.();
    _inner.onerror = (e) => this.onerror?.(e);
    mirrorStdioShape(this, _inner);
  }

  /** Set once connected: whether the server declared the extension, and whether the session is 2026-07-28. */
  use(declared: boolean, modern: boolean): void {
    this._declared = declared;
    this._modern = modern;
    this._route();
  }

  get onmessage(): Transport['onmessage'] {
    return this._onmessage;
  }

  set onmessage(handler: Transport['onmessage']) {
    this._onmessage = handler;
    this._route();
  }

  get sessionId(): string | undefined {
    return this._inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this._inner.hasPerRequestStream;
  }

  start(): Promise<void> {
    return this._inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: RequestId; method?: string; params?: unknown };
    if ((this._declared || this._modern) && m.method !== undefined && m.id !== undefined) {
      if (this._declared && !this._modern) {
        const params = (m.params ?? {}) as Parameters<typeof withTaskCapabilityV2>[0];
        message = { ...message, params: withTaskCapabilityV2(params) } as JSONRPCMessage;
      }
      this._pending.set(m.id, m.method);
      if (this._pending.size > MAX_PENDING) this._pending.delete(this._pending.keys().next().value!);
    }
    return this._inner.send(message, options);
  }

  close(): Promise<void> {
    return this._inner.close();
  }

  setProtocolVersion(version: string): void {
    this._inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this._inner.setSupportedProtocolVersions?.(versions);
  }

  /**
   * Only answers to requests sent while in use are read: until then (for a 2025 server without
   * the extension, always) incoming messages go straight to the client, one call less per
   * message (bench: requestor host CPU).
   */
  private _route(): void {
    const handler = this._onmessage;
    this._inner.onmessage = handler && (this._declared || this._modern || this._pending.size > 0) ? (message, extra) => handler(this._incoming(message), extra) : handler;
  }

  private _incoming(message: JSONRPCMessage): JSONRPCMessage {
    const m = message as { id?: RequestId; method?: string };
    if (m.id === undefined || m.method !== undefined || this._pending.size === 0) return message;
    const method = this._pending.get(m.id);
    if (method === undefined) return message;
    this._pending.delete(m.id);
    if (!('result' in message) || typeof message.result !== 'object' || message.result === null) return message;
    const result = message.result as Record<string, unknown>;
    if (this._modern && !('resultType' in result)) {
      if (!this._missingResultTypeSaid) {
        this._missingResultTypeSaid = true;
        this._note(`the server answered ${method} without "resultType", which MCP 2026-07-28 requires; taken as a complete result (and so for any later answer)`);
      }
      return { ...message, result: { ...result, resultType: 'complete' } } as JSONRPCMessage;
    }
    if (result.resultType !== 'task') return message;
    if (!TASK_ELIGIBLE.has(method)) {
      // §Capability Negotiation: a CreateTaskResult for an unsupported request is an invalid response.
      return {
        jsonrpc: '2.0',
        id: m.id,
        error: { code: -32603, message: `Invalid response: the server answered ${method} with a CreateTaskResult, but only tools/call may become a task (Tasks extension)` },
      };
    }
    return {
      jsonrpc: '2.0',
      id: m.id,
      error: { code: TASK_ANSWER_CODE, message: 'the server made this call a task', data: { taskAnswer: this._answers.keep(result) } },
    };
  }
}
