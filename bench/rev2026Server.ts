/**
 * Section 8's (`rev2026`) server: MCP 2026-07-28 on the official SDK v2 (`@modelcontextprotocol/server` 2.4.0),
 * the bench's own so that it does only what the rows measure and tells when it pushes.
 *
 * Tools: `echo {text}` answers at once; `ask {}` asks one form through an `input_required` result
 * (one elicitation, no requestState) and answers with what came back; with the Tasks extension
 * declared (`tasks: true`), `task {pollIntervalMs}` answers a task (`resultType: "task"`) that ends
 * when the bench calls {@link BenchTaskBook.complete} (in process), with `tasks/get` and
 * `tasks/cancel`, and `subscriptions/listen` for task ids served in front of the SDK by
 * {@link ListenFront} (the SDK's listen router knows only the four list-changed kinds: a filter
 * naming `taskIds` is dropped before its acknowledgement). The wire shapes are those of the demo
 * server's 2026-07-28 mode (examples/demo-server).
 */
import { randomUUID } from 'node:crypto';
import { TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { McpServer, ProtocolError, acceptedContent, inputRequired, type CallToolResult, type InputRequiredResult, type JSONRPCMessage, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { z } from 'zod';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const NAME = z.object({ name: z.string() });
const text = (s: string): CallToolResult => ({ content: [{ type: 'text', text: s }] });

export interface BenchTask {
  readonly taskId: string;
  status: 'working' | 'completed' | 'cancelled';
  readonly createdAt: string;
  lastUpdatedAt: string;
  readonly pollIntervalMs: number;
  result?: CallToolResult;
}

/** The tasks of one server, and who listens to which. */
export class BenchTaskBook {
  readonly tasks = new Map<string, BenchTask>();
  private readonly _listeners = new Set<(t: BenchTask) => void>();
  /** How many open `subscriptions/listen` cover each task id. */
  private readonly _listens = new Map<string, number>();
  /** Called just before a `notifications/tasks` about a task is handed to the transport (performance.now()). */
  onPush?: (taskId: string, status: string, at: number) => void;

  start(pollIntervalMs: number): BenchTask {
    const now = new Date().toISOString();
    const t: BenchTask = { taskId: randomUUID(), status: 'working', createdAt: now, lastUpdatedAt: now, pollIntervalMs };
    this.tasks.set(t.taskId, t);
    return t;
  }

  /** Ends the task with a result; listeners (the listen streams) hear it at once. */
  complete(taskId: string, answer: string): void {
    const t = this.tasks.get(taskId);
    if (!t || t.status !== 'working') return;
    t.status = 'completed';
    t.result = text(answer);
    t.lastUpdatedAt = new Date().toISOString();
    for (const l of this._listeners) l(t);
  }

  cancel(taskId: string): void {
    const t = this.tasks.get(taskId);
    if (!t || t.status !== 'working') return;
    t.status = 'cancelled';
    t.lastUpdatedAt = new Date().toISOString();
    for (const l of this._listeners) l(t);
  }

  onChange(listener: (t: BenchTask) => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  find(taskId: string): BenchTask {
    const t = this.tasks.get(taskId);
    if (!t) throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
    return t;
  }

  /** Whether an open `subscriptions/listen` covers the task. */
  listened(taskId: string): boolean {
    return (this._listens.get(taskId) ?? 0) > 0;
  }

  /** @internal ListenFront: a stream opened (+1) or closed (-1) for `ids`. */
  countListens(ids: Iterable<string>, delta: 1 | -1): void {
    for (const id of ids) this._listens.set(id, (this._listens.get(id) ?? 0) + delta);
  }
}

/** The DetailedTask of the Tasks extension (tasks/get, notifications/tasks). */
export function detailed(t: BenchTask): Record<string, unknown> {
  return {
    taskId: t.taskId,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: 600_000,
    pollIntervalMs: t.pollIntervalMs,
    ...(t.status === 'completed' ? { result: { resultType: 'complete', ...t.result } } : {}),
  };
}

export interface Bench2026Options {
  /** Declare the Tasks extension and serve the `task` tool and `tasks/*`. */
  readonly tasks?: BenchTaskBook;
}

export function createBench2026Server(options: Bench2026Options = {}): McpServer {
  const book = options.tasks;
  const server = new McpServer(
    { name: 'bench-rev2026', version: '1.0.0' },
    { capabilities: { tools: {}, ...(book ? { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } : {}) } },
  );
  server.registerTool('echo', { description: 'Answers at once.', inputSchema: z.object({ text: z.string().optional() }) }, async ({ text: t }) => text(`echo: ${t ?? ''}`));
  server.registerTool('ask', { description: 'Asks one form (input_required), then answers with it.' }, async (ctx): Promise<CallToolResult | InputRequiredResult> => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name', NAME);
    if (answer) return text(`Hello, ${answer.name}!`);
    return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: 'Your name?', requestedSchema: NAME }) } });
  });
  if (!book) return server;
  server.registerTool('task', { description: 'A task that ends when the bench says so.', inputSchema: z.object({ pollIntervalMs: z.number().optional() }) }, async ({ pollIntervalMs }) => {
    const { result: _r, ...seed } = detailed(book.start(pollIntervalMs ?? 1000));
    // A CreateTaskResult (`resultType: "task"`), which the SDK passes through for tools/call.
    return { ...seed, resultType: 'task' } as unknown as CallToolResult;
  });
  const TaskParams = z.looseObject({ taskId: z.string() });
  // 2025-11-25 names the SDK lets through on 2026-07-28 when registered with a schema (the extension re-defines them).
  server.server.setRequestHandler('tasks/get', { params: TaskParams }, (params) => ({ ...detailed(book.find(params.taskId)), resultType: 'complete' }));
  server.server.setRequestHandler('tasks/cancel', { params: TaskParams }, (params) => {
    book.cancel(book.find(params.taskId).taskId);
    return {};
  });
  return server;
}

type Message = Record<string, unknown>;

/**
 * The transport `serveStdio` is given (over stdio or the in-memory transport): the real one, with
 * `subscriptions/listen` for task ids served here — acknowledged with the ids the book knows, then
 * one `notifications/tasks` with the whole task per change, stamped with the listen's id — or
 * refused with -32601 (`refuseListen`: the host then polls, the baseline of Section 8 (`rev2026`)).
 */
export class ListenFront implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly _open = new Map<unknown, () => void>();

  constructor(
    private readonly _inner: Transport,
    private readonly _book: BenchTaskBook,
    private readonly _refuseListen = false,
  ) {}

  start(): Promise<void> {
    this._inner.onclose = () => this.onclose?.();
    this._inner.onerror = (e) => this.onerror?.(e);
    this._inner.onmessage = (message, extra) => {
      if (!this._served(message as Message)) this.onmessage?.(message, extra);
    };
    return this._inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this._inner.send(message, options);
  }

  close(): Promise<void> {
    for (const close of this._open.values()) close();
    return this._inner.close();
  }

  private _write(m: Message): void {
    void this._inner.send(m as JSONRPCMessage).catch(() => undefined);
  }

  private _served(m: Message): boolean {
    const params = m.params as { notifications?: { taskIds?: unknown }; requestId?: unknown } | undefined;
    if (m.method === 'notifications/cancelled' && this._open.has(params?.requestId)) {
      this._open.get(params?.requestId)!();
      return true;
    }
    if (m.method !== 'subscriptions/listen' || m.id === undefined || params?.notifications?.taskIds === undefined) return false;
    if (this._refuseListen) {
      this._write({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
      return true;
    }
    const ids = new Set((Array.isArray(params.notifications.taskIds) ? params.notifications.taskIds : []).filter((id): id is string => typeof id === 'string' && this._book.tasks.has(id)));
    const stamp = { [SUBSCRIPTION_ID]: m.id };
    this._write({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [...ids] }, _meta: stamp } });
    const deliver = (t: BenchTask) => {
      this._book.onPush?.(t.taskId, t.status, performance.now());
      this._write({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...detailed(t), _meta: stamp } });
    };
    // A change between the task's creation and this listen is not lost.
    for (const id of ids) if (this._book.tasks.get(id)!.status !== 'working') deliver(this._book.tasks.get(id)!);
    this._book.countListens(ids, 1);
    const unsubscribe = this._book.onChange((t) => {
      if (ids.has(t.taskId)) deliver(t);
    });
    this._open.set(m.id, () => {
      this._open.delete(m.id);
      unsubscribe();
      this._book.countListens(ids, -1);
    });
    return true;
  }
}
