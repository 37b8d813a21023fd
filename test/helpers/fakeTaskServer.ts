/**
 * A scripted in-process stand-in for a task-capable server, seen through the parts of
 * `McpConnection` the requestor tracker uses (client.request / callTool, state,
 * notifications). Every request is logged with the (mockable) `Date.now()`, so unit tests with
 * fake timers can count `tasks/get` against the pollInterval exactly.
 */
import type { CallToolResult, JSONRPCMessage, Task } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError as McpError, SdkError, SdkErrorCode } from '../../src/core/base/errors.js';
import type { ServerDefinition, TransportDefinition } from '../../src/core/config/config.js';
import { originOf } from '../../src/core/connection/serverOrigin.js';
import { NULL_LOG, type ConnectionState, type RequestorConnection } from '../../src/core/connection/connection.js';
import type { HostClient } from '../../src/core/connection/hostClient.js';
import type { ClientSide, Continuity } from '../../src/core/connection/connection.js';
import type { Event } from '../../src/core/base/event.js';
import { toDisposable } from '../../src/core/base/lifecycle.js';

type Status = Task['status'];
const terminal = (s: Status) => s === 'completed' || s === 'failed' || s === 'cancelled';

interface FakeTask {
  task: Task;
  result?: CallToolResult;
  waiters: Array<() => void>;
}

export interface LoggedRequest {
  readonly at: number;
  readonly method: 'tools/call' | 'tasks/get' | 'tasks/result' | 'tasks/result answered' | 'tasks/cancel' | 'tasks/list';
  readonly taskId?: string;
}

export class FakeTaskServer {
  readonly log: LoggedRequest[] = [];
  readonly tasks = new Map<string, FakeTask>();
  /** pollInterval of new tasks. */
  pollInterval = 1000;
  /** While set, tools/call answers only once it resolves (the task exists already). */
  createGate?: Promise<void>;
  /**
   * When set, a new task is moved to this status and its status notification is delivered before
   * the CreateTaskResult that names it, in the same turn (as a pipe read gives both lines at once).
   */
  finishBeforeAnswer?: Status;
  /** The next N tasks/result requests fail with a network error. */
  resultNetworkFailures = 0;
  /** How tasks/cancel answers a non-terminal task: cancel it (default), or claim it unknown. */
  cancelMode: 'cancel' | 'unknown' = 'cancel';
  /** Plain (non-task) `tools/call` requests waiting for their answer: call one to answer it. */
  readonly plainCalls: Array<(result: CallToolResult) => void> = [];
  private _n = 0;
  /**
   * Listeners of the fake connection's notifications. A plain set, not an Emitter: the leak check
   * of the tests is about what the code under test subscribes (each subscription is a tracked
   * disposable it must dispose), not about the fake's own list.
   */
  private readonly _listeners = new Set<(m: JSONRPCMessage) => unknown>();
  private readonly _onNotification: Event<JSONRPCMessage> = (listener) => {
    this._listeners.add(listener);
    return toDisposable(() => this._listeners.delete(listener));
  };

  /** Ends the notifications of every connection it made. */
  dispose(): void {
    this._listeners.clear();
  }

  count(method: LoggedRequest['method'], taskId?: string): number {
    return this.log.filter((l) => l.method === method && (taskId === undefined || l.taskId === taskId)).length;
  }

  times(method: LoggedRequest['method'], taskId?: string): number[] {
    return this.log.filter((l) => l.method === method && (taskId === undefined || l.taskId === taskId)).map((l) => l.at);
  }

  /** Changes a task's status on the server (and answers a waiting tasks/result once terminal). */
  set(taskId: string, status: Status, result: CallToolResult = { content: [{ type: 'text', text: `done ${taskId}` }] }): void {
    const t = this.tasks.get(taskId)!;
    t.task = { ...t.task, status, lastUpdatedAt: new Date(Date.now()).toISOString() };
    if (status === 'completed' || status === 'failed') t.result = result;
    if (terminal(status)) for (const w of t.waiters.splice(0)) w();
  }

  /** Sends `notifications/tasks/status` with the task as it stands. */
  notify(taskId: string, patch: Partial<Task> = {}): void {
    this.notifyMessage({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { ...this.tasks.get(taskId)!.task, ...patch } } as JSONRPCMessage);
  }

  /** Sends any notification as it is (a forged one: an id it never issued). */
  notifyMessage(message: JSONRPCMessage): void {
    for (const l of [...this._listeners]) l(message);
  }

  connection(def: ServerDefinition, state: ConnectionState = { kind: 'running', capabilities: {} }): RequestorConnection & { setState(s: ConnectionState): void; setTransport(t: TransportDefinition): void } {
    let current = state;
    // Where the fake "reaches": its definition's transport, until a test points it elsewhere (setTransport).
    let origin = originOf(def.transport);
    const caps = { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
    const getTask = async (taskId: string) => {
      this.log.push({ at: Date.now(), method: 'tasks/get', taskId });
      const t = this.tasks.get(taskId);
      if (!t) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      return { ...t.task };
    };
    const getTaskResult = async (taskId: string) => {
      this.log.push({ at: Date.now(), method: 'tasks/result', taskId });
      if (this.resultNetworkFailures > 0) {
        this.resultNetworkFailures--;
        throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'UND_ERR_SOCKET' } });
      }
      const t = this.tasks.get(taskId);
      if (!t) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      if (!terminal(t.task.status)) await new Promise<void>((r) => t.waiters.push(r));
      this.log.push({ at: Date.now(), method: 'tasks/result answered', taskId });
      if (!t.result) throw new McpError(ErrorCode.InternalError, 'no result stored');
      return t.result;
    };
    const cancelTask = async (taskId: string) => {
      this.log.push({ at: Date.now(), method: 'tasks/cancel', taskId });
      const t = this.tasks.get(taskId);
      if (!t || this.cancelMode === 'unknown') throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      if (terminal(t.task.status)) throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${t.task.status}`);
      this.set(taskId, 'cancelled');
      return { ...t.task };
    };
    const listTasks = async () => {
      this.log.push({ at: Date.now(), method: 'tasks/list' });
      return { tasks: [...this.tasks.values()].map((t) => ({ ...t.task })) };
    };
    const client = {
      // The task wires send every task request through `request`.
      request: async (request: { method: string; params?: { taskId?: string } }, _schema: unknown, options?: { signal?: AbortSignal }) => {
        if (request.method === 'tasks/get') return getTask(request.params!.taskId!);
        if (request.method === 'tasks/result') return getTaskResult(request.params!.taskId!);
        if (request.method === 'tasks/cancel') return cancelTask(request.params!.taskId!);
        if (request.method === 'tasks/list') return listTasks();
        this.log.push({ at: Date.now(), method: 'tools/call' });
        const now = new Date(Date.now()).toISOString();
        const task: Task = { taskId: `t${++this._n}`, status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null, pollInterval: this.pollInterval };
        this.tasks.set(task.taskId, { task, waiters: [] });
        if (this.createGate) {
          const signal = options?.signal;
          await Promise.race([
            this.createGate,
            new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true })),
          ]);
        }
        if (this.finishBeforeAnswer) {
          const created = { ...task };
          this.set(task.taskId, this.finishBeforeAnswer);
          this.notify(task.taskId);
          return { task: created };
        }
        return { task: { ...task } };
      },
      // Task progress routing (connection/hostClient.ts): the fake sends no progress.
      taskProgressToken: () => `progress-${this._n + 1}`,
      bindTaskProgress: () => undefined,
      releaseTaskProgress: () => undefined,
      forgetTaskProgress: () => undefined,
      callTool: (_params: unknown, options?: { signal?: AbortSignal }) => {
        this.log.push({ at: Date.now(), method: 'tools/call' });
        return new Promise<CallToolResult>((resolve, reject) => {
          this.plainCalls.push(resolve);
          options?.signal?.addEventListener('abort', () => reject(options.signal!.reason), { once: true });
        });
      },
    };
    const conn = {
      id: def.id,
      name: def.name,
      definition: def,
      log: NULL_LOG,
      onDidReceiveNotification: this._onNotification,
      get state() {
        return current;
      },
      get serverCapabilities() {
        return current.kind === 'running' ? caps : undefined;
      },
      get client() {
        if (current.kind !== 'running') throw new SdkError(SdkErrorCode.NotConnected, `Server "${def.name}" is not running`);
        // The part of the SDK client the task wires and the tracker reach.
        return client as unknown as HostClient;
      },
      setState(s: ConnectionState) {
        current = s;
      },
      get origin() {
        return current.kind === 'running' ? origin : undefined;
      },
      setTransport(t: TransportDefinition) {
        origin = originOf(t);
      },
      // A restarted fake is a new server process (it forgets its tasks as one).
      continuity: { kind: 'new-process' } as Continuity,
      // No sides: no task status push from the fake (its tasks are polled), and no receiver unless a test gives one.
      sides: [] as ClientSide[],
    };
    return conn satisfies RequestorConnection & { setState(s: ConnectionState): void; setTransport(t: TransportDefinition): void };
  }
}

/** A server definition in a given file (two files may hold the same name). */
export function definition(name: string, file = 'user settings', id = name, kind: 'user' | 'workspace' = 'user'): ServerDefinition {
  return {
    id,
    name,
    source: kind === 'workspace' ? { kind, file, folder: file.replace(/[\\/]\.vscode[\\/]mcp\.json$/, '') } : { kind, file },
    transport: { type: 'stdio', command: 'node', args: [name], env: {} },
    inputs: [],
  };
}
