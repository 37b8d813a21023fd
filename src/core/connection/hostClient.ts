/**
 * The SDK `Client` as this host uses it, plus the capabilities it declares.
 */
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ReceiverTaskStore } from '../receiver/taskStore.js';
import { incomingDispatch, type MessageExtra } from './incomingDispatch.js';

export type { ReceiverTaskStore } from '../receiver/taskStore.js';
import {
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * R-CAP-1: sampling, elicitation (form and url) and the client-side task capabilities for
 * `sampling/createMessage` and `elicitation/create`, with `tasks/list` and `tasks/cancel`.
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

export type HostClientOptions = Omit<ClientOptions, 'taskMessageQueue' | 'taskStore'> & { readonly taskStore?: ReceiverTaskStore };

/** Requests a server can make a task of on this host (R-CAP-1); with `params.task` each is a create. */
const TASK_CREATING_METHODS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create']);
/** The `tasks/*` requests this host answers; each is one operation of the server's budget. */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);

interface ParseableSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };
  shape?: { method?: { value?: unknown; def?: { values?: unknown[] } } };
}

/** A handler in the SDK's dispatch table; the SDK awaits what it returns, so a plain value will do. */
type RawHandler = (request: unknown, extra: { signal: AbortSignal; sessionId?: string }) => Promise<unknown> | unknown;

/** The SDK `Protocol`'s own dispatch steps, which {@link HostClient.connect} routes messages to. */
interface ProtocolDispatch {
  _onrequest(request: JSONRPCRequest, extra: MessageExtra): void;
  _onnotification(notification: JSONRPCNotification): void;
  _onerror(error: Error): void;
}

/**
 * An SDK `Client` adapted to this host's receiver side. Every request handler:
 * - answers malformed params with -32602 (Invalid params) instead of the SDK's -32603 (R-ERR-1):
 *   the SDK parses params with zod and lets the ZodError surface as an internal error;
 * - with a task store, charges the server's operation budget once per wire request — a
 *   task-augmented create or a `tasks/*` request — before anything runs (R-SEC-3). The SDK's own
 *   store reads while it answers are free, so a server waiting on `tasks/result` spends nothing;
 * - echoes a request's related-task metadata on its result (R-META-1), except for `tasks/*`
 *   (R-META-2).
 * And `tasks/result` is answered from {@link ReceiverTaskStore.whenTerminal} the moment the task
 * ends (R-RESULT-2): the SDK's handler polls the store at the task's `pollInterval` instead,
 * charging and adding an abort listener on every poll. `tasks/get` is answered as it arrives, by one
 * synchronous step with the same rules and answers (see {@link HostClient.connect}). Everything
 * else is the SDK's behaviour.
 *
 * Never configure a `taskMessageQueue` on it: with one, the SDK routes the responses to a
 * server's related-task requests (sent while one of *our* tool tasks is `input_required`) into
 * our own queue and looks the server's task id up in our store ("Task not found"). Our
 * `tasks/result` therefore has no queued messages to deliver.
 */
export class HostClient extends Client {
  /** Set after `super()`: the SDK registers its `tasks/*` handlers (through our override) before. */
  private _receiverStore: ReceiverTaskStore | undefined;

  constructor(info: Implementation, options: HostClientOptions) {
    super(info, options);
    const store = options.taskStore;
    this._receiverStore = store;
    if (store) {
      this._handlers.set('tasks/result', (request, extra) => answerTaskResult(store, request, extra.signal));
      this._wrap('tasks/result', GetTaskPayloadRequestSchema as unknown as ParseableSchema);
      this._handlers.set('tasks/get', (request) => answerTaskGet(store, request));
    }
  }

  /**
   * The SDK's connect, then {@link incomingDispatch} in front of the SDK's message handler. And a
   * `tasks/get` is answered where it arrives, by {@link answerTaskGet}: the SDK's request dispatch
   * would first make it an AbortController, a request-scoped task store, an `extra` with two
   * closures and a chain of three promises, for an answer that is a synchronous read of the
   * ledger (about a third of a `tasks/get` round trip, bench/ row 1). The answer and its errors are
   * the ones the SDK's dispatch would send for that handler (test/unit/connection/incomingDispatch,
   * test/unit/receiver/receiverWire). A task-augmented `tasks/get` (odd input) still goes the SDK's way.
   */
  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    const prior = transport.onmessage;
    await super.connect(transport, options);
    const sdk = transport.onmessage;
    const protocol = this as unknown as ProtocolDispatch;
    // The SDK's own dispatch steps are private: an SDK that renamed them keeps its own handler.
    if (!sdk || typeof protocol._onrequest !== 'function' || typeof protocol._onnotification !== 'function') return;
    const store = this._receiverStore;
    transport.onmessage = incomingDispatch({
      prior,
      sdk,
      request: (request, extra) => {
        if (store && request.method === 'tasks/get' && !isTaskAugmented(request)) this._answerTaskGet(store, request);
        else protocol._onrequest(request, extra);
      },
      notification: (notification) => protocol._onnotification(notification),
    });
  }

  private _answerTaskGet(store: ReceiverTaskStore, request: JSONRPCRequest): void {
    const transport = this.transport;
    if (!transport) return;
    let response: JSONRPCResponse;
    try {
      response = { jsonrpc: '2.0', id: request.id, result: answerTaskGet(store, request) };
    } catch (e) {
      response = { jsonrpc: '2.0', id: request.id, error: errorBody(e) };
    }
    transport.send(response).catch((e: unknown) => (this as unknown as ProtocolDispatch)._onerror(new Error(`Failed to send response: ${String(e)}`)));
  }

  override setRequestHandler(...args: Parameters<Client['setRequestHandler']>): void {
    super.setRequestHandler(...args);
    const schema = args[0] as unknown as ParseableSchema;
    const method = methodOf(schema);
    if (method) this._wrap(method, schema);
  }

  /** The SDK's dispatch table (a Map from method to handler). */
  private get _handlers(): Map<string, RawHandler> {
    return (this as unknown as { _requestHandlers: Map<string, RawHandler> })._requestHandlers;
  }

  private _wrap(method: string, schema: ParseableSchema): void {
    const handlers = this._handlers;
    const inner = handlers.get(method);
    if (!inner) return;
    // The SDK's own handler parses the params before anything runs, so it fails on malformed
    // params without side effects. Checking them here only on failure (rather than before every
    // request) spares each valid request a second zod parse, and a plain `.catch` rather than an
    // async wrapper spares it ~260 bytes of garbage (bench/, row 1: tasks/get latency).
    const onError = (e: unknown, request: unknown): never => failed(method, schema, e, request);
    const isTaskMethod = TASK_METHODS.has(method);
    const createsTasks = TASK_CREATING_METHODS.has(method);
    handlers.set(method, (request, extra) => {
      let pending: Promise<unknown>;
      try {
        const store = this._receiverStore;
        if (store && (isTaskMethod || (createsTasks && isTaskAugmented(request)))) store.admit(isTaskMethod ? method : `${method} (task)`);
        // Promise.resolve returns a promise as it is: the wrapped handlers (the SDK's, tasks/result's) all return one.
        pending = Promise.resolve(inner(request, extra));
      } catch (e) {
        pending = Promise.reject(e);
      }
      const related = isTaskMethod ? undefined : relatedTaskIdOf(request);
      if (related !== undefined) pending = pending.then((result) => withRelatedTask(result, related));
      return pending.catch((e: unknown) => onError(e, request));
    });
  }
}

/**
 * The error a request that failed is answered with: -32602 naming the first issue when its params
 * are malformed (R-ERR-1), else `e` without the SDK's message prefix.
 */
function failed(method: string, schema: ParseableSchema, e: unknown, request: unknown): never {
  const parsed = schema.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.filter((p) => p !== 'params').join('.') : '';
    throw withoutSdkPrefix(new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}${where ? `: "${where}"` : ''}: ${issue?.message ?? 'invalid'}`));
  }
  throw withoutSdkPrefix(e);
}

/**
 * R-TASK-1/2, R-SEC-3, R-META-2: `tasks/get` in one synchronous step — charge the budget, parse,
 * copy the task — answering what the SDK's handler behind {@link HostClient._wrap} answered. Also
 * in the SDK's dispatch table (for a request that reaches it: see {@link HostClient.connect}),
 * where a plain value spares the SDK's async handler, our async `getTask` and the wrapper's `.catch`.
 */
function answerTaskGet(store: ReceiverTaskStore, request: unknown): Result {
  try {
    store.admit('tasks/get');
    const task = store.getTaskNow(GetTaskRequestSchema.parse(request).params.taskId);
    // The SDK's own words for an unknown task.
    if (!task) throw new McpError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return task;
  } catch (e) {
    return failed('tasks/get', GetTaskRequestSchema as unknown as ParseableSchema, e, request);
  }
}

/**
 * R-RESULT-1/2/3: waits (without polling) until the task is terminal, then answers what the
 * plain request would have: its result with related-task metadata, or its JSON-RPC error.
 */
async function answerTaskResult(store: ReceiverTaskStore, request: unknown, signal: AbortSignal): Promise<Result> {
  const { taskId } = GetTaskPayloadRequestSchema.parse(request).params;
  await store.whenTerminal(taskId, signal);
  const result = await store.getTaskResult(taskId);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** The `error` of the response the SDK's dispatch sends for a handler that threw `e`. */
function errorBody(e: unknown): JSONRPCErrorResponse['error'] {
  const err = e as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: Number.isSafeInteger(err.code) ? (err.code as number) : ErrorCode.InternalError,
    message: typeof err.message === 'string' ? err.message : 'Internal error',
    ...(err.data !== undefined && { data: err.data }),
  };
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
function withRelatedTask(result: unknown, taskId: string): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const r = result as Result;
  return { ...r, _meta: { ...r._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/**
 * `McpError` puts "MCP error <code>: " in front of its message, which the SDK sends on the wire
 * and the receiving SDK prefixes again. Send the plain message with the same code and data.
 */
function withoutSdkPrefix(e: unknown): unknown {
  if (!(e instanceof McpError)) return e;
  const plain = new Error(e.message.replace(/^MCP error -?\d+: /, '')) as Error & { code: number; data?: unknown };
  plain.code = e.code;
  if (e.data !== undefined) plain.data = e.data;
  return plain;
}

function methodOf(schema: ParseableSchema): string | undefined {
  const m = schema.shape?.method;
  const v = m?.value ?? m?.def?.values?.[0];
  return typeof v === 'string' ? v : undefined;
}
