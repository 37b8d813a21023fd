// Task plumbing shared by the demo server's task tools. Everything protocol-level (tasks/get,
// tasks/result, tasks/list, tasks/cancel, the side-channel message queue, CreateTaskResult
// validation) is done by the SDK; this module only adds what a *tool implementation* needs:
// a cancellation signal per task, progress after CreateTaskResult, status messages, and
// "ask the client" helpers that pick the right SDK call for the situation.
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import {
  InMemoryTaskStore,
  isTerminal,
  type CreateTaskRequestHandlerExtra,
  type CreateTaskResult,
  type ResponseMessage,
} from '@modelcontextprotocol/sdk/experimental/tasks';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';

/** Logs go to stderr only: stdout is the stdio transport's channel. */
export function log(...parts: unknown[]): void {
  const text = parts.map((p) => (typeof p === 'string' ? p : p instanceof Error ? p.message : JSON.stringify(p))).join(' ');
  process.stderr.write(`[mcp-tasks-demo] ${text}\n`);
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

/** Limits of the demo server (R-SEC-2: documented ttl cap). All overridable through the environment. */
export interface RuntimeLimits {
  /** `pollInterval` advertised on every task (ms). */
  pollIntervalMs: number;
  /** ttl used when the requestor asks for none (ms). */
  defaultTtlMs: number;
  /** Largest ttl granted; larger requests are capped (R-TASK-3). */
  maxTtlMs: number;
  /** How long a request to the client (sampling/elicitation) may stay unanswered (ms). */
  inputTimeoutMs: number;
}

export function limitsFromEnv(): RuntimeLimits {
  return {
    pollIntervalMs: envInt('DEMO_POLL_INTERVAL_MS', 500),
    defaultTtlMs: envInt('DEMO_DEFAULT_TTL_MS', 15 * 60_000),
    maxTtlMs: envInt('DEMO_MAX_TTL_MS', 60 * 60_000),
    inputTimeoutMs: envInt('DEMO_INPUT_TIMEOUT_MS', 10 * 60_000),
  };
}

/** Text of the first text block of a tool result, for status messages. */
function firstText(result: Result): string | undefined {
  const content = (result as Partial<CallToolResult>).content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block.type === 'text') return block.text;
  }
  return undefined;
}

/**
 * The SDK's in-memory store plus two things the SDK does not offer:
 * - an AbortSignal per task that fires when the task becomes `cancelled` (the SDK's tasks/cancel
 *   handler only flips the status in the store, so this hook is how running work learns of it;
 *   R-CANCEL-2);
 * - a final `statusMessage`: `InMemoryTaskStore.storeTaskResult` never sets one, so a failed task
 *   would carry only its last progress message. R-LIFE-3 wants a diagnostic one.
 */
export class DemoTaskStore extends InMemoryTaskStore {
  private readonly cancellers = new Map<string, AbortController>();

  /**
   * @param sharedAcrossSessions tasks belong to the server, not to the session that created them
   *   (`--shared-tasks`): created without a sessionId, they are visible from every session.
   */
  constructor(private readonly sharedAcrossSessions = false) {
    super();
  }

  override createTask(...args: Parameters<InMemoryTaskStore['createTask']>): ReturnType<InMemoryTaskStore['createTask']> {
    const [params, requestId, request, sessionId] = args;
    return super.createTask(params, requestId, request, this.sharedAcrossSessions ? undefined : sessionId);
  }

  /** Signal that aborts when the task is cancelled (or the connection goes away). */
  signalFor(taskId: string): AbortSignal {
    let controller = this.cancellers.get(taskId);
    if (!controller) {
      controller = new AbortController();
      // Every SDK request given this signal adds an 'abort' listener; long polls would warn.
      setMaxListeners(0, controller.signal);
      this.cancellers.set(taskId, controller);
    }
    return controller.signal;
  }

  override async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') {
      log(`task ${taskId} cancelled by the requestor`);
      this.cancellers.get(taskId)?.abort(new TaskCancelledError(taskId));
    }
    if (isTerminal(status)) this.cancellers.delete(taskId);
  }

  override async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    const current = await this.getTask(taskId, sessionId);
    if (current && !isTerminal(current.status)) {
      // Set the final message without changing the status (the base store only writes a
      // statusMessage from updateTaskStatus). R-LIFE-3: a failed task explains itself.
      const message =
        status === 'failed' ? `Failed: ${firstText(result) ?? 'the tool reported an error'}` : 'Completed';
      await super.updateTaskStatus(taskId, current.status, message.slice(0, 500), sessionId);
    }
    await super.storeTaskResult(taskId, status, result, sessionId);
    this.cancellers.delete(taskId);
  }

  /** Stops a task's work without changing its status (e.g. the task expired). */
  abortWork(taskId: string, reason: Error): void {
    this.cancellers.get(taskId)?.abort(reason);
    this.cancellers.delete(taskId);
  }

  /** Connection closed: stop all work and drop all tasks and ttl timers. */
  shutdown(): void {
    for (const controller of this.cancellers.values()) controller.abort(new Error('connection closed'));
    this.cancellers.clear();
    this.cleanup();
  }
}

export class TaskCancelledError extends Error {
  constructor(taskId: string) {
    super(`task ${taskId} was cancelled`);
    this.name = 'TaskCancelledError';
  }
}

/** Runs `fn` with a signal that follows `outer` only while `fn` runs (no stale abort listeners). */
async function withAbort<T>(outer: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  outer.throwIfAborted();
  const inner = new AbortController();
  const onAbort = () => inner.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(inner.signal);
  } finally {
    outer.removeEventListener('abort', onAbort);
  }
}

/** Next item of an async iterator, or a rejection as soon as `signal` aborts. */
async function nextOrAbort<T>(it: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  signal.throwIfAborted();
  const next = it.next();
  next.catch(() => undefined); // may be abandoned below
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([next, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** How a request to the client was carried. */
export type ClientRequestRoute =
  | 'client task (task-augmented request, polled with tasks/get + tasks/result)'
  | 'tasks/result side channel (task input_required)'
  | 'direct (nested in the tools/call request)';

export interface ClientAnswer<T> {
  result: T;
  route: ClientRequestRoute;
  clientTaskId?: string;
}

/** Cancellable sleep for task work. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).then(
    () => undefined,
    (err: unknown) => {
      throw signal.aborted ? signal.reason : err;
    },
  );
}

/**
 * One running task of a task tool: the background half of `createTask`.
 *
 * `augmented` tells whether the requestor asked for a task (`params.task`). When it did not (an
 * `optional` tool called plainly), the SDK's McpServer still runs the tool through `createTask`
 * and polls the store itself before answering the tools/call request, so the task is an
 * implementation detail and messages can ride on the still-open tools/call request.
 */
export class TaskJob {
  readonly taskId: string;
  readonly signal: AbortSignal;

  constructor(
    private readonly mcp: McpServer,
    private readonly extra: CreateTaskRequestHandlerExtra,
    task: Task,
    readonly augmented: boolean,
    private readonly store: DemoTaskStore,
    readonly limits: RuntimeLimits,
  ) {
    this.taskId = task.taskId;
    this.signal = store.signalFor(task.taskId);
  }

  /** R-META-1: related-task metadata for messages that belong to a requestor-visible task. */
  private relatedMeta(): Record<string, unknown> {
    return this.augmented ? { [RELATED_TASK_META_KEY]: { taskId: this.taskId } } : {};
  }

  /**
   * Progress through the original request's progressToken, for the task's whole life
   * (R-PROGRESS-1). For a real task the tools/call request has already been answered, so the
   * notification is sent unrelated to it (on Streamable HTTP a message "related" to an answered
   * request has no stream and the SDK transport throws); it goes on the standalone SSE stream.
   * It carries related-task metadata in `_meta` (R-META-1): passing `relatedTask` to the SDK
   * instead would park it in the task message queue until the next tasks/result.
   */
  async progress(progress: number, total: number, message: string): Promise<void> {
    const progressToken = this.extra._meta?.progressToken;
    if (progressToken === undefined || this.signal.aborted) return;
    const notification = {
      method: 'notifications/progress' as const,
      params: { progressToken, progress, total, message, ...(this.augmented ? { _meta: this.relatedMeta() } : {}) },
    };
    try {
      if (this.augmented) await this.mcp.server.notification(notification);
      else await this.extra.sendNotification(notification);
    } catch (err) {
      log(`task ${this.taskId}: progress not delivered:`, err);
    }
  }

  /**
   * Moves the task between `working` and `input_required` with a status message (the SDK's
   * request-bound store also emits notifications/tasks/status, R-NOTIFY-1). Returns false when the
   * task is already terminal: it never overwrites `cancelled` (R-CANCEL-3, R-LIFE-2).
   */
  async setStatus(status: 'working' | 'input_required', statusMessage: string): Promise<boolean> {
    if (this.signal.aborted) return false;
    try {
      await this.extra.taskStore.updateTaskStatus(this.taskId, status, statusMessage);
      return true;
    } catch (err) {
      // With --shared-tasks the store outlives the session: the status was stored, only the
      // notification to the (gone) session failed.
      if ((await this.store.getTask(this.taskId, this.extra.sessionId))?.status === status) return true;
      log(`task ${this.taskId}: status not updated:`, err);
      // The store drops a task once its ttl (counted from creation) runs out, even while it is
      // working: nobody can read the result any more, so stop the work.
      if (!(await this.store.getTask(this.taskId, this.extra.sessionId))) {
        this.store.abortWork(this.taskId, new Error(`task ${this.taskId} expired (ttl elapsed)`));
      }
      return false;
    }
  }

  /** Stores the tool result: `isError: true` → `failed` (R-LIFE-3), else `completed`. */
  async finish(result: CallToolResult): Promise<void> {
    if (this.signal.aborted) {
      log(`task ${this.taskId}: finished after cancellation, result dropped (R-CANCEL-3)`);
      return;
    }
    try {
      const current = await this.extra.taskStore.getTask(this.taskId);
      if (isTerminal(current.status)) {
        log(`task ${this.taskId}: already ${current.status}, result dropped (R-CANCEL-3)`);
        return;
      }
      await this.extra.taskStore.storeTaskResult(this.taskId, result.isError ? 'failed' : 'completed', result);
      log(`task ${this.taskId}: ${result.isError ? 'failed' : 'completed'}`);
    } catch (err) {
      const now = await this.store.getTask(this.taskId, this.extra.sessionId).catch(() => null);
      if (now && isTerminal(now.status)) log(`task ${this.taskId}: ${now.status} (stored; its session is gone, so no notification)`);
      else log(`task ${this.taskId}: result not stored:`, err);
    }
  }

  private clientCaps() {
    return this.mcp.server.getClientCapabilities();
  }

  /**
   * Sends a request to the client and returns its answer, choosing how:
   * 1. the client declared task support for this request type (R-CAP-2) → a task-augmented
   *    request through the SDK's `createMessageStream` / `elicitInputStream`, which polls the
   *    client's tasks/get and fetches tasks/result (our task stays `working`, with a status
   *    message naming the client task);
   * 2. otherwise, inside a real task → a plain request queued with `relatedTask`, which the SDK
   *    delivers on the requestor's tasks/result stream while the task is `input_required`
   *    (R-RESULT-4), then back to `working`;
   * 3. otherwise (plain tool call) → a plain request nested in the tools/call request.
   */
  private async askClient<T extends Result>(
    what: string,
    clientTaskSupport: boolean,
    plain: (options: RequestOptions) => Promise<T>,
    stream: (options: RequestOptions) => AsyncGenerator<ResponseMessage<T>, void, void>,
  ): Promise<ClientAnswer<T>> {
    const timeout = this.limits.inputTimeoutMs;
    const route: RequestOptions = this.augmented ? {} : { relatedRequestId: this.extra.requestId };

    if (clientTaskSupport) {
      await this.setStatus('working', `Sending ${what} to the client as a task`);
      const it = stream({ ...route, task: { ttl: timeout }, timeout });
      let clientTaskId: string | undefined;
      let lastStatus = '';
      try {
        for (;;) {
          const step = await nextOrAbort(it, this.signal);
          if (step.done) throw new Error(`${what}: the SDK stream ended without a result`);
          const message = step.value;
          switch (message.type) {
            case 'taskCreated':
              clientTaskId = message.task.taskId;
              log(`task ${this.taskId}: client accepted ${what} as client task ${clientTaskId}`);
              await this.setStatus('working', `Waiting for client task ${clientTaskId} (${what})`);
              break;
            case 'taskStatus': {
              const s = `${message.task.status}${message.task.statusMessage ? `: ${message.task.statusMessage}` : ''}`;
              if (s !== lastStatus) {
                lastStatus = s;
                await this.setStatus('working', `Client task ${message.task.taskId} (${what}) is ${s}`);
              }
              break;
            }
            case 'result':
              return {
                result: message.result,
                route: 'client task (task-augmented request, polled with tasks/get + tasks/result)',
                clientTaskId,
              };
            case 'error':
              throw message.error;
          }
        }
      } catch (err) {
        if (this.signal.aborted && clientTaskId) {
          // Our task was cancelled: cancel the client's task too (best effort).
          this.mcp.server.experimental.tasks
            .cancelTask(clientTaskId)
            .then(() => log(`task ${this.taskId}: cancelled client task ${clientTaskId}`))
            .catch((e: unknown) => log(`task ${this.taskId}: could not cancel client task ${clientTaskId}:`, e));
        }
        throw err;
      }
    }

    if (this.augmented) {
      await this.setStatus('input_required', `Waiting for the requestor to answer ${what} (via tasks/result)`);
      const result = await withAbort(this.signal, (signal) =>
        plain({ relatedTask: { taskId: this.taskId }, timeout, signal }),
      );
      await this.setStatus('working', `Got the answer to ${what}`);
      return { result, route: 'tasks/result side channel (task input_required)' };
    }

    const result = await withAbort(this.signal, (signal) => plain({ ...route, timeout, signal }));
    return { result, route: 'direct (nested in the tools/call request)' };
  }

  /** `sampling/createMessage` to the client (task-augmented when the client supports it). */
  async sample(params: CreateMessageRequestParams): Promise<ClientAnswer<CreateMessageResult>> {
    const caps = this.clientCaps();
    if (!caps?.sampling) throw new Error('The client did not declare the sampling capability.');
    const taskCapable = !!caps.tasks?.requests?.sampling?.createMessage;
    const server = this.mcp.server;
    return this.askClient<CreateMessageResult>(
      'sampling/createMessage',
      taskCapable,
      async (options) => (await server.createMessage(params, options)) as CreateMessageResult,
      (options) =>
        server.experimental.tasks.createMessageStream(
          { ...params, _meta: { ...params._meta, ...this.relatedMeta() } },
          options,
        ),
    );
  }

  /**
   * Form-mode `elicitation/create` to the client (task-augmented when the client supports it).
   * `sideChannel: true` always uses route 2 (input_required + tasks/result) inside a real task.
   */
  async elicit(params: ElicitRequestFormParams, options: { sideChannel?: boolean } = {}): Promise<ClientAnswer<ElicitResult>> {
    const caps = this.clientCaps();
    if (!caps?.elicitation?.form) throw new Error('The client did not declare form elicitation support.');
    const taskCapable = !options.sideChannel && !!caps.tasks?.requests?.elicitation?.create;
    const server = this.mcp.server;
    return this.askClient<ElicitResult>(
      'elicitation/create',
      taskCapable,
      (options) => server.elicitInput(params, options),
      (options) =>
        server.experimental.tasks.elicitInputStream({ ...params, _meta: { ...params._meta, ...this.relatedMeta() } }, options),
    );
  }
}

/** Turns a thrown error into a tool error result (the task then ends `failed`, R-ERR-2). */
export function errorResult(err: unknown): CallToolResult {
  const text = err instanceof Error ? err.message : String(err);
  return { content: [{ type: 'text', text }], isError: true };
}

/** The requested ttl, defaulted and capped (R-TASK-3, R-SEC-2). */
export function grantedTtl(requested: number | undefined, limits: RuntimeLimits): number {
  if (requested === undefined || !Number.isFinite(requested) || requested <= 0) return limits.defaultTtlMs;
  return Math.min(Math.floor(requested), limits.maxTtlMs);
}

export interface StartTaskOptions {
  mcp: McpServer;
  store: DemoTaskStore;
  extra: CreateTaskRequestHandlerExtra;
  augmented: boolean;
  limits: RuntimeLimits;
  /** R-CREATE-4: text a host may hand to the model right away. */
  immediateResponse?: string;
  /** The work; its result (or thrown error) becomes the task's result. */
  work: (job: TaskJob) => Promise<CallToolResult>;
}

/**
 * The `createTask` half of a task tool: creates the task in the SDK's request-bound store (new
 * tasks are `working`, R-CREATE-2; ids are random, R-CREATE-3), starts the work in the
 * background and returns the CreateTaskResult at once (R-CREATE-1).
 */
export async function startTask(opts: StartTaskOptions): Promise<CreateTaskResult> {
  const { extra, limits } = opts;
  const task = await extra.taskStore.createTask({
    ttl: grantedTtl(extra.taskRequestedTtl, limits),
    pollInterval: limits.pollIntervalMs,
  });
  const job = new TaskJob(opts.mcp, extra, task, opts.augmented, opts.store, limits);
  log(`task ${task.taskId} created (${opts.augmented ? 'requested by the client' : 'internal, plain call'})`);
  // Start after the CreateTaskResult has gone out, so no status/progress precedes it.
  setImmediate(() => {
    opts
      .work(job)
      .catch((err: unknown) => (job.signal.aborted ? undefined : errorResult(err)))
      .then((result) =>
        result ? job.finish(result) : log(`task ${task.taskId}: work stopped (${String((job.signal.reason as Error | undefined)?.message ?? 'aborted')})`),
      )
      .catch((err: unknown) => log(`task ${task.taskId}: unexpected error:`, err));
  });
  return {
    task,
    ...(opts.immediateResponse
      ? { _meta: { 'io.modelcontextprotocol/model-immediate-response': opts.immediateResponse } }
      : {}),
  };
}
