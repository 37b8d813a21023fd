/**
 * The SDK `Client` (v2) as this host uses it, plus the capabilities it declares.
 *
 * It speaks both eras: `connect` negotiates with `server/discover` and falls back to the 2025
 * `initialize` handshake (the SDK's version negotiation). What it changes goes through the SDK's
 * documented subclass hooks (`_wrapHandler`, `_resolveNonCompleteResult`, `_outboundMetaEnvelope`,
 * `_onnotification`); the one thing it needs of the SDK's private state, the request dispatch that
 * incomingDispatch.ts hands requests to, is read through sdkInternals.ts, which checks it at start-up.
 * What the receiver adds (the 2025 `tasks/*` answers, the budget) it installs through one port,
 * {@link ReceivedTasks} (receiver/wire/receiverSide.ts). The 2026-07-28 `input_required` rounds of a
 * request are driven by the request's owner, named with the request ({@link OwnedRequestOptions}).
 */
import { withTaskCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  CLIENT_CAPABILITIES_META_KEY,
  Client,
  RELATED_TASK_META_KEY,
  isInputRequiredResult,
  type CallToolRequest,
  type CallToolRequestOptions,
  type CallToolResult,
  type ClientCapabilities,
  type ClientContext,
  type ConnectOptions,
  type Implementation,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type ListToolsRequest,
  type ListToolsResult,
  type MessageExtraInfo,
  type Progress,
  type RequestOptions,
  type Request,
  type RequestMethod,
  type Result,
  type ResultTypeMap,
  type StandardSchemaV1,
  type Task,
  type Transport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { GetTaskRequestSchema } from '@modelcontextprotocol/core';
import { invalidParams, paramsSentence, sdkValidationIssues, type ParamIssues } from '../base/paramIssues.js';
import { InvalidParamsError, isConnectionClosed } from '../base/errors.js';
import { DEFAULT_MAX_INPUT_ROUNDS } from '../config/limits.js';
import { routeIncoming } from './incomingDispatch.js';
import { requestDispatchOf, requestIdsOf } from './sdkInternals.js';
import { ToolCalls2026, type DecodedAnswer, type RoundsFlow } from './toolCall2026.js';
import type { InputRequiredAnswer, OwnedRequestOptions } from './roundOwner.js';
import { declaresTasksExtension } from './tasksCapability.js';

/**
 * R-CAP-1: sampling, elicitation (form and url) and the client-side task capabilities for
 * `sampling/createMessage` and `elicitation/create`, with `tasks/list` and `tasks/cancel` (the
 * 2025-11-25 receiver): what the receiver's side declares (receiver/wire/receiverSide.ts); a
 * connection declares only its sides' (`ClientSide.capabilities`, merged in attempt.ts). A 2026-07-28 request's
 * envelope leaves `tasks` out (that revision has no such capability) and declares the Tasks extension to a server
 * that declares it (see {@link HostClient}).
 */
export const HOST_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  tasks: {
    list: {},
    cancel: {},
    requests: {
      sampling: { createMessage: {} },
      elicitation: { create: {} },
    },
  },
};

export interface HostClientOptions {
  readonly capabilities?: ClientCapabilities;
  /** The received tasks: with them, this host answers task-augmented requests and `tasks/*` (2025-11-25); see {@link HostClient.receive}. */
  readonly received?: ReceivedTasks;
  /**
   * How the protocol revision is chosen: `'auto'` (default) probes `server/discover` and falls
   * back to `initialize`; `{ pin }` speaks exactly that revision; `'legacy'` only `initialize`.
   */
  readonly versionNegotiation?: VersionNegotiationMode;
  /** How long the `server/discover` probe waits (on stdio a server that stays silent is a 2025 server). */
  readonly probeTimeoutMs?: number;
  /** Most `input_required` rounds one request may take (2026-07-28; default {@link DEFAULT_MAX_INPUT_ROUNDS}): its owner fails it past them. */
  readonly maxInputRounds?: number;
  /**
   * The transport this client connects to hands on only messages that passed the SDK's message schema
   * (what connection/transports.ts makes): its responses go straight to the SDK's response dispatch (incomingDispatch.ts).
   */
  readonly messagesChecked?: boolean;
}

export interface ParseableSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: ParamIssues };
}

/** One 2025-11-25 `tasks/*` request the receiver answers: its schema and its answer. */
export interface ReceivedTaskRequest {
  readonly schema: ParseableSchema;
  answer(params: never, signal: AbortSignal): Result | Promise<Result>;
}

/**
 * The tasks servers created on this host, as the client answers their wire (the receiver's side
 * installs them: receiver/wire/receiverSide.ts).
 */
export interface ReceivedTasks {
  /** R-SEC-3: charges one wire request to the server's budget; throws (-32600) when it is spent. */
  admit(operation: string): void;
  /** A fresh copy of the task, or null when unknown or expired; throws (-32602) for an empty id. Costs no budget. */
  getTaskNow(taskId: string): Task | null;
  /** The `tasks/*` requests answered (2025-11-25), each with its schema. */
  readonly requests: Readonly<Record<string, ReceivedTaskRequest>>;
  /** Requests a server can make a task of on this host (R-CAP-1), with their schema; with `params.task` each is a create. */
  readonly creates: Readonly<Record<string, ParseableSchema>>;
  /** The one params check of a question a server asks (throws -32602 naming the field). */
  checkQuestion(request: { method: string; params?: unknown }): void;
  /**
   * The call a question belongs to when it names a task this host sent (2025-11-25: asked on
   * that task's tasks/result stream): its signal, aborted when the call ends, and `settled`, told
   * when the question's handler is done (`stillOpen`: it ended only because the connection
   * closed, so the server still waits for the answer); undefined when it names no such call.
   * Throws the refusal when that call has ended already.
   */
  ownQuestion?(method: string, relatedTaskId: string, request: { readonly id: string | number; readonly params?: unknown }): OwnedQuestion | undefined;
}

/** A question owned by the call it names ({@link ReceivedTasks.ownQuestion}). */
export interface OwnedQuestion {
  readonly closed: AbortSignal;
  settled(stillOpen: boolean): void;
}

type StoredHandler = (request: JSONRPCRequest, ctx: ClientContext) => Promise<Result>;

/**
 * An SDK `Client` adapted to this host. Every request handler:
 * - answers malformed params with -32602 (Invalid params) and one sentence naming the field and
 *   what was expected (R-ERR-1), never the validator's list of issues — on either revision, and
 *   for a task-augmented create too (which skips the SDK's wrapper, whose check would say -32603);
 * - with a task store, charges the server's operation budget once per wire request — a
 *   task-augmented create or a `tasks/*` request — before anything runs (R-SEC-3);
 * - echoes a request's related-task metadata on its result (R-META-1), except for `tasks/*`
 *   (R-META-2).
 * A task-augmented `sampling/createMessage` / `elicitation/create` answers a CreateTaskResult,
 * which the SDK's result check for those methods would refuse: it goes around that check only.
 * `tasks/result` is answered from the receiver's wait for its end (receiver/wire/receiverRequests.ts) the moment the task
 * ends (R-RESULT-2).
 *
 * On 2026-07-28 the SDK's automatic fulfilment of `input_required` results is off (manual mode):
 * the owner a request names ({@link OwnedRequestOptions}) drives its rounds — each opened through
 * the question door as that round of its call — and any other request that comes back
 * `input_required` fails with the SDK's typed refusal.
 *
 * A 2026-07-28 `tools/call` over stdio is sent by the host's own path (toolCall2026.ts: the id from the
 * client's counter, its answer taken in `_onresponse`, its progress in `_onnotification`, its rounds through
 * `_resolveNonCompleteResult` as above); any other call, and every other request, is the SDK's.
 */
export class HostClient extends Client {
  private _received: ReceivedTasks | undefined;
  /** Most `input_required` rounds one request may take. */
  readonly maxInputRounds: number;
  private readonly _messagesChecked: boolean;

  /** The own 2026-07-28 `tools/call` path; undefined when this SDK has no request counter to share (sdkInternals.ts). */
  private readonly _toolCalls: ToolCalls2026 | undefined;

  constructor(info: Implementation, options: HostClientOptions = {}) {
    // The SDK's own default validator (its Node shim), kept so the own tool calls compile with the same one.
    const validators = new AjvJsonSchemaValidator();
    super(info, {
      capabilities: options.capabilities ?? HOST_CAPABILITIES,
      jsonSchemaValidator: validators,
      versionNegotiation: { mode: options.versionNegotiation ?? 'auto', ...(options.probeTimeoutMs !== undefined ? { probe: { timeoutMs: options.probeTimeoutMs } } : {}) },
      // Manual mode: a request's rounds are its owner's (see _resolveNonCompleteResult).
      inputRequired: { autoFulfill: false },
    });
    this.maxInputRounds = options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    this._messagesChecked = options.messagesChecked === true;
    const nextId = requestIdsOf(this);
    this._toolCalls = nextId && new ToolCalls2026(
      {
        transport: () => this.transport,
        nextId,
        envelope: () => this._outboundMetaEnvelope(),
        decode: (raw) => this._wireCodec().decodeResult('tools/call', raw) as DecodedAnswer,
        check: (value) => {
          const outcome = this._wireCodec().validateResult('tools/call', value);
          return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, message: outcome.reason === 'invalid' ? outcome.message : 'not-in-era: tools/call' };
        },
        rounds: (decoded, flow) => this._roundsOf(decoded, flow),
        onerror: (e) => this.onerror?.(e),
      },
      validators,
    );
    if (options.received) this.receive(options.received);
  }

  /**
   * A 2026-07-28 call over stdio goes by the host's own path (toolCall2026.ts), which keeps what the SDK's
   * does for it; anything else by the SDK's.
   */
  override callTool(params: CallToolRequest['params'], options?: CallToolRequestOptions): Promise<CallToolResult> {
    const own = this._toolCalls;
    if (own && this.isModern && ToolCalls2026.covers(this.transport, options)) return own.call(params, options);
    return super.callTool(params, options);
  }

  /** The SDK's `listTools`; a full listing (no cursor) is also the own tool calls' source of output schemas, as it is the SDK's. */
  override async listTools(params?: ListToolsRequest['params'], options?: Parameters<Client['listTools']>[1]): Promise<ListToolsResult> {
    const listed = await super.listTools(params, options);
    if (params?.cursor === undefined) this._toolCalls?.listed(listed.tools);
    return listed;
  }

  /** The rounds of an own tool call, handed over as the SDK's funnel hands them (see {@link _resolveNonCompleteResult}). */
  private _roundsOf(decoded: Extract<DecodedAnswer, { kind: 'input_required' }>, flow: RoundsFlow): Promise<unknown> {
    type Flow = Parameters<Client['_resolveNonCompleteResult']>[1];
    return this._resolveNonCompleteResult(decoded as Parameters<Client['_resolveNonCompleteResult']>[0], { ...flow, codec: this._wireCodec(), resultSchema: ownResultSchema } as unknown as Flow);
  }

  protected override _onresponse(response: JSONRPCResponse): void {
    if (this._toolCalls?.answer(response)) return;
    super._onresponse(response);
  }

  protected override _onclose(): void {
    super._onclose();
    this._toolCalls?.closed();
  }

  /**
   * The receiver's part, installed before any of its handlers and before connecting: the 2025
   * `tasks/*` answered from `received`, and the budget charged per wire request (see {@link _wrapHandler}).
   */
  receive(received: ReceivedTasks): void {
    this._received = received;
    for (const [method, { answer }] of Object.entries(received.requests)) {
      // The 2025 `tasks/*` are spec methods of that era (the SDK parses them); its typed method list leaves them out.
      (this.setRequestHandler as (method: string, handler: (request: { params?: unknown }, ctx: ClientContext) => Promise<Result> | Result) => void)(method, (request, ctx) =>
        answer(request.params as never, ctx.mcpReq.signal),
      );
    }
  }

  /**
   * The SDK's connect, then {@link routeIncoming} in front of the SDK's message handler: a request or
   * notification meets only the SDK check that can match, and a 2025-11-25 `tasks/get` for a received
   * task is answered where it arrives (incomingDispatch.ts).
   */
  override async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    const prior = transport.onmessage;
    // A new session: no tool definition of an earlier one holds (the SDK resets its response cache likewise).
    this._toolCalls?.toolsChanged();
    await super.connect(transport, options);
    routeIncoming(transport, prior, {
      store: this._received,
      isModern: () => this.isModern,
      request: requestDispatchOf(this),
      ...(this._messagesChecked ? { response: (response: JSONRPCResponse) => this._onresponse(response) } : {}),
      notification: (n, extra) => this._onnotification(n, extra),
      onerror: (e) => this.onerror?.(e),
      failed: (e, request) => failed(this._received, 'tasks/get', GetTaskRequestSchema, e, request),
    });
  }

  /** Progress of task-augmented requests, by the token this host gave them (see {@link taskProgressToken}). */
  private readonly _taskProgress = new Map<string, { readonly onprogress: (p: Progress) => void; taskId?: string }>();
  private _progressSeq = 0;

  /**
   * R-PROGRESS-1: a progress token for a task-augmented request, whose progress keeps coming after
   * its CreateTaskResult for as long as the task runs. The SDK forgets a request's progress once it
   * is answered, so such progress is routed here until {@link forgetTaskProgress}.
   */
  taskProgressToken(onprogress: (p: Progress) => void): string {
    const token = `mcp-tasks-progress-${++this._progressSeq}`;
    this._taskProgress.set(token, { onprogress });
    return token;
  }

  /** The task a progress token's request created (its progress ends with the task). */
  bindTaskProgress(token: string, taskId: string): void {
    const route = this._taskProgress.get(token);
    if (route) route.taskId = taskId;
  }

  /** The request of `token` failed: nothing more to route. */
  releaseTaskProgress(token: string): void {
    this._taskProgress.delete(token);
  }

  /** A task ended: its progress is no longer routed. */
  forgetTaskProgress(taskId: string): void {
    for (const [token, route] of this._taskProgress) if (route.taskId === taskId) this._taskProgress.delete(token);
  }

  protected override _onnotification(raw: JSONRPCNotification, extra?: MessageExtraInfo): void {
    if (raw.method === 'notifications/progress' && this._toolCalls?.progress(raw.params as Parameters<ToolCalls2026['progress']>[0])) return;
    if (raw.method === 'notifications/tools/list_changed') this._toolCalls?.toolsChanged();
    if (raw.method === 'notifications/progress' && this._taskProgress.size > 0) {
      const params = raw.params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined;
      const route = typeof params?.progressToken === 'string' ? this._taskProgress.get(params.progressToken) : undefined;
      if (route && typeof params!.progress === 'number') {
        route.onprogress({
          progress: params!.progress,
          ...(typeof params!.total === 'number' ? { total: params!.total } : {}),
          ...(typeof params!.message === 'string' ? { message: params!.message } : {}),
        });
        return;
      }
    }
    super._onnotification(raw, extra);
  }

  /** The era this connection speaks: `2026-07-28` and later are `modern`. */
  get isModern(): boolean {
    return this.getProtocolEra() === 'modern';
  }

  protected override _wrapHandler(method: string, handler: StoredHandler): StoredHandler {
    const sdk = super._wrapHandler(method, handler);
    const store = this._received;
    const task = store?.requests[method];
    if (task) {
      return (request, ctx) => {
        let pending: Promise<Result>;
        try {
          store?.admit(method);
          // The SDK's params check throws before any promise: caught here like a rejection.
          pending = sdk(request, ctx);
        } catch (e) {
          pending = Promise.reject(e);
        }
        return pending.catch((e: unknown) => failed(store, method, task.schema, e, request));
      };
    }
    const creates = store?.creates[method];
    const createsTasks = creates !== undefined;
    const question = createsTasks; // sampling/createMessage, elicitation/create: the questions a server asks
    return (request, asked) => {
      let pending: Promise<Result>;
      const owned = question ? this._ownedByCall(method, request, asked) : undefined;
      if (owned instanceof Error) return Promise.reject(owned);
      const ctx = owned?.ctx ?? asked;
      // The SDK checks the result of these methods against the plain result; a task-augmented
      // request answers a CreateTaskResult instead (R-TASK-1), so it skips that check alone.
      if (store && createsTasks && isTaskAugmented(request)) {
        try {
          store.admit(`${method} (task)`);
          pending = handler(request, ctx);
        } catch (e) {
          pending = Promise.reject(e);
        }
      } else {
        try {
          pending = sdk(request, ctx);
        } catch (e) {
          pending = Promise.reject(e);
        }
      }
      if (creates) pending = pending.catch((e: unknown) => failed(store, method, creates, e, request));
      // Still open on the server when only the connection closed (a reload): the call keeps it (requestor/keptQuestion.ts).
      if (owned) pending = pending.finally(() => owned.question.settled(asked.mcpReq.signal.aborted && isConnectionClosed(asked.mcpReq.signal.reason)));
      const related = relatedTaskIdOf(request);
      return related === undefined ? pending : pending.then((result) => withRelatedTask(result, related));
    };
  }

  /**
   * A 2025-11-25 question that names a task this host sent (its related-task metadata: asked on
   * that task's tasks/result stream) belongs to that call: refused once the call has ended, and
   * withdrawn (its signal aborted) when the call ends while it waits — as a 2026-07-28 round's are —
   * even if the server never cancels it (the receiver's side says whose it is: `ReceivedTasks.ownQuestion`).
   * Other questions pass as they came.
   */
  private _ownedByCall(method: string, request: unknown, ctx: Parameters<StoredHandler>[1]): { readonly ctx: Parameters<StoredHandler>[1]; readonly question: OwnedQuestion } | Error | undefined {
    const related = relatedTaskIdOf(request);
    const own = this._received?.ownQuestion;
    if (related === undefined || !own) return undefined;
    let question: OwnedQuestion | undefined;
    try {
      question = own(method, related, { id: ctx.mcpReq.id, params: (request as { params?: unknown }).params });
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
    return question ? { ctx: { ...ctx, mcpReq: { ...ctx.mcpReq, signal: AbortSignal.any([ctx.mcpReq.signal, question.closed]) } }, question } : undefined;
  }

  /**
   * An `input_required` answer (2026-07-28) goes to the owner its request names, which drives the
   * rounds; the retries are the SDK's own (`flow.retry`: the request again on a fresh id, in manual
   * mode, so each hands back the next `input_required` as it is). The first answer comes here rather
   * than to the caller (`allowInputRequired`) so that the SDK's `callTool` checks only the complete
   * result against the tool's output schema — it would take an `input_required` handed back for a
   * tool result missing its structured content — and mirrors the tool's `Mcp-Param-*` headers on
   * every leg. A request that names no owner gets the SDK's typed refusal (manual mode).
   */
  protected override _resolveNonCompleteResult<T extends Parameters<Client['_resolveNonCompleteResult']>[1]['resultSchema']>(
    decoded: Parameters<Client['_resolveNonCompleteResult']>[0],
    flow: Parameters<Client['_resolveNonCompleteResult']>[1] & { resultSchema: T },
  ): Promise<unknown> {
    const options = flow.options as OwnedRequestOptions | undefined;
    const owner = options?.inputRounds;
    if (!owner) return super._resolveNonCompleteResult(decoded, flow);
    // What carries over to every leg, as the SDK's own driver carries it (not the first leg's resumption token).
    const legOptions: RequestOptions = {
      allowInputRequired: true,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.onprogress !== undefined ? { onprogress: options.onprogress } : {}),
      ...(options.resetTimeoutOnProgress !== undefined ? { resetTimeoutOnProgress: options.resetTimeoutOnProgress } : {}),
      ...(options.headers !== undefined ? { headers: options.headers } : {}),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    };
    const original = flow.request.params as CallToolRequest['params'] | undefined;
    return owner.drive({
      method: flow.request.method,
      first: { inputRequests: decoded.inputRequests as InputRequiredAnswer['inputRequests'], ...(decoded.requestState !== undefined ? { requestState: decoded.requestState } : {}) },
      maxRounds: this.maxInputRounds,
      signal: options.signal,
      retry: async (inputResponses, requestState) => {
        const params = { ...original, ...(inputResponses ? { inputResponses } : {}), ...(requestState !== undefined ? { requestState } : {}) };
        const result = await flow.retry(params, legOptions);
        return isInputRequiredResult(result) ? { kind: 'input_required', answer: result } : { kind: 'complete', result };
      },
    });
  }

  /** The era's result check of each spec method asked so far, for the codec they were made for. */
  private _resultChecks: { readonly codec: object; readonly byMethod: Map<string, StandardSchemaV1 | null> } | undefined;

  /**
   * A request without a result schema, as the SDK makes it, with the era's result check made once per
   * method. The SDK makes that check anew for every request, and first tries it on `undefined` to learn
   * whether the method has one: a failed zod parse whose error is turned into a message, thrown away
   * (client side alone, `node --no-opt`: ≈ 15 % of a bare client's `tools/call`; bench: rev2026 host CPU per call).
   * The check kept is the one the SDK makes (the codec's `validateResult`), and the request goes
   * through the SDK's own `_requestWithSchema`, which gates the method by era as `request` does.
   * Before a version is negotiated, and for a method without a result entry (the SDK's TypeError),
   * the SDK's `request` as it is.
   */
  override request<M extends RequestMethod>(request: { method: M; params?: Record<string, unknown> }, options?: RequestOptions): Promise<ResultTypeMap[M]>;
  override request<T extends StandardSchemaV1>(request: Request, resultSchema: T, options?: RequestOptions): Promise<StandardSchemaV1.InferOutput<T>>;
  override request(request: Request, schemaOrOptions?: unknown, maybeOptions?: RequestOptions): Promise<unknown> {
    const sdk = super.request as (request: Request, schemaOrOptions?: unknown, maybeOptions?: RequestOptions) => Promise<unknown>;
    if (isStandardSchema(schemaOrOptions) || this.getNegotiatedProtocolVersion() === undefined) return sdk.call(this, request, schemaOrOptions, maybeOptions);
    const check = this._resultCheckFor(request.method);
    if (!check) return sdk.call(this, request, schemaOrOptions, maybeOptions);
    return this._requestWithSchema(request, check, schemaOrOptions as RequestOptions | undefined);
  }

  private _resultCheckFor(method: string): StandardSchemaV1 | null {
    const codec = this._wireCodec();
    let kept = this._resultChecks;
    if (kept?.codec !== codec) this._resultChecks = kept = { codec, byMethod: new Map() };
    let check = kept.byMethod.get(method);
    if (check === undefined) {
      const probe = codec.validateResult(method, undefined);
      check = !probe.ok && probe.reason === 'not-in-era' ? null : resultCheck(codec, method);
      kept.byMethod.set(method, check);
    }
    return check;
  }

  /** The last 2026-07-28 envelope made, with what it was made from. */
  private _envelope: { readonly from: Readonly<Record<string, unknown>>; readonly capabilities: object | undefined; readonly envelope: Readonly<Record<string, unknown>> } | undefined;

  /**
   * Each 2026-07-28 request's `_meta` envelope, in that revision's words:
   * - the client capabilities without `tasks`: that field is 2025-11-25 vocabulary (the task-augmented
   *   requests of the receiver's side), which the 2026-07-28 capabilities no longer have
   *   (the SDK's `ClientCapabilities2026Schema`); a server of that revision ignored it, but read its
   *   ~100 bytes on every request (bench: rev2026 tools/call latency);
   * - to a server that declares the Tasks extension, that extension too (§Capability Negotiation).
   *
   * Made once and kept while the SDK's envelope holds the same values (the revision, this client's
   * info and capabilities: the same for the whole session): the SDK copies it into each request's
   * `_meta`, and making it again for every request was part of each call's CPU (bench: rev2026 host CPU per call).
   */
  protected override _outboundMetaEnvelope(): Readonly<Record<string, unknown>> | undefined {
    const envelope = super._outboundMetaEnvelope();
    if (!envelope) return envelope;
    const capabilities = this.getServerCapabilities();
    const kept = this._envelope;
    if (kept && kept.capabilities === capabilities && sameEntries(kept.from, envelope)) return kept.envelope;
    const made = envelopeOf2026(envelope, capabilities !== undefined && declaresTasksExtension(capabilities));
    this._envelope = { from: envelope, capabilities, envelope: made };
    return made;
  }
}

/** The 2026-07-28 words of the SDK's `envelope` (see {@link HostClient._outboundMetaEnvelope}), frozen. */
function envelopeOf2026(envelope: Readonly<Record<string, unknown>>, tasksExtension: boolean): Readonly<Record<string, unknown>> {
  let meta: Record<string, unknown> = { ...envelope };
  const declared = meta[CLIENT_CAPABILITIES_META_KEY];
  if (typeof declared === 'object' && declared !== null && 'tasks' in declared) {
    const { tasks: _2025Only, ...capabilities } = declared as ClientCapabilities;
    meta[CLIENT_CAPABILITIES_META_KEY] = capabilities;
  }
  // The extension's own helper, applied to the envelope as the `_meta` it becomes.
  if (tasksExtension) meta = withTaskCapabilityV2({ _meta: meta } as Parameters<typeof withTaskCapabilityV2>[0])._meta as Record<string, unknown>;
  return Object.freeze(meta);
}

/**
 * The error a request that failed is answered with (R-ERR-1): when its params are malformed,
 * -32602 with one sentence naming the field (paramIssues.ts); when they pass `schema` but the
 * SDK's check of this revision refused them, the same sentence from the SDK's own issues; else
 * `e` itself. Only a failed request pays for the second parse.
 */
function failed(received: ReceivedTasks | undefined, method: string, schema: ParseableSchema, e: unknown, request: unknown): never {
  if (received?.creates[method]) received.checkQuestion(request as { method: string; params?: unknown });
  const parsed = schema.safeParse(request);
  if (!parsed.success) throw invalidParams(method, parsed.error, request);
  const sdkIssues = e instanceof InvalidParamsError ? undefined : sdkValidationIssues(e);
  if (sdkIssues) throw new InvalidParamsError(paramsSentence(method, sdkIssues, request));
  throw e;
}

/** Whether two envelopes have the same keys with the very same values (no deep compare: the SDK builds each from the same objects). */
function sameEntries(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  let n = 0;
  for (const key in b) {
    if (!Object.hasOwn(a, key) || a[key] !== b[key]) return false;
    n++;
  }
  return n === Object.keys(a).length;
}

type WireCodec = ReturnType<HostClient['_wireCodec']>;

/** The era's result check of `method`, as a standard schema: the codec's own `validateResult` (see {@link HostClient.request}). */
function resultCheck(codec: WireCodec, method: string): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'mcp-wire-codec',
      validate(value: unknown) {
        const outcome = codec.validateResult(method, value);
        if (outcome.ok) return { value: outcome.value };
        return { issues: [{ message: outcome.reason === 'invalid' ? outcome.message : `not-in-era: ${method}` }] };
      },
    },
  };
}

/**
 * The result schema an own tool call's flow names: never used to check (each leg of those calls is
 * checked in toolCall2026.ts before its result is handed on), present because the SDK's flow has one.
 */
const ownResultSchema: StandardSchemaV1 = {
  '~standard': { version: 1, vendor: 'mcp-tasks-own-call', validate: (value: unknown) => ({ value }) },
};

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

function isTaskAugmented(request: unknown): boolean {
  const task = (request as { params?: { task?: unknown } }).params?.task;
  return typeof task === 'object' && task !== null;
}

function relatedTaskIdOf(request: unknown): string | undefined {
  const meta = (request as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const related = meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === 'string' ? related.taskId : undefined;
}

/** R-META-1: the reply to a request that belongs to a task carries the same related-task metadata. */
function withRelatedTask(result: Result, taskId: string): Result {
  if (typeof result !== 'object' || result === null) return result;
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}
