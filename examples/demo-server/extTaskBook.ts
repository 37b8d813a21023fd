// The task semantics of the MCP Tasks extension (`io.modelcontextprotocol/tasks`,
// modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md), kept apart from any
// session or SDK: the 2025-11-25 session server (tasksExtension.ts, SDK v1) and the 2026-07-28
// server (demo2026.ts, SDK v2) both drive the same book, so a task behaves the same on either.
// Messages are built and checked with the generated "core/v2" schemas of @modelcontextprotocol/ext-tasks.
//
// Task tools (`TASK_TOOLS`):
//   ext_count     {steps?, stepMs?, pollIntervalMs?, pollIntervalsMs?, ttlNull?, notify?, refuseGets?, refuseGetsCount?, cancelAckDelayMs?}
//                                      counts, then completes (`pollIntervalsMs`: the pollIntervalMs
//                                      after step 1, 2, …, so it changes over the task's life;
//                                      `refuseGets`: its next `refuseGetsCount` (default: every)
//                                      tasks/get are refused, 'header-mismatch' as HTTP 400 -32020
//                                      over Streamable HTTP even with the right Mcp-Name (tests),
//                                      'internal-error' as -32603; `cancelAckDelayMs` (2026-07-28 mode):
//                                      tasks/cancel is acknowledged that long after the cancelled
//                                      status went out on the listen streams — eventually consistent)
//   ext_ask_name  {count?, notify?, keepAsking?}
//                                      needs input mid-task: an elicitation (or `count`) in `inputRequests`;
//                                      `keepAsking` (tests): tasks/cancel is acknowledged but ignored,
//                                      and every tasks/get after it asks one more question (a server
//                                      that keeps asking after the user cancelled)
//   ext_fail      {stepMs?}            fails with a JSON-RPC error (status `failed`)
// `notify: true` also pushes `notifications/tasks` on the 2025 session (§Task Status Notifications);
// on 2026-07-28 they go to the `subscriptions/listen` streams that name the task (taskListen.ts).
import { randomUUID } from 'node:crypto';
import { GetTaskResultV2Schema, TaskStatusNotificationV2Schema, UpdateTaskRequestV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';

export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

export type ExtStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface ExtTask {
  taskId: string;
  status: ExtStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  inputRequests?: Record<string, unknown>;
  timers: Set<NodeJS.Timeout>;
  /** Pushes `notifications/tasks` for this task on its 2025 session (`notify: true`). */
  notify?: (params: Record<string, unknown>) => void;
  /** For tests: server-side times (ms) of each tasks/get, tasks/update keys received, cancels. */
  gets: number[];
  /** The status and pollIntervalMs each tasks/get answered. */
  getAnswers: Array<{ status: ExtStatus; pollIntervalMs: number }>;
  updates: string[];
  /** ext_ask_name: one greeting per answered key. */
  greetings: string[];
  cancels: number;
  tool: string;
  /** For tests (`ext_count` `refuseGets`): how the next `left` tasks/get of this task are refused. */
  refuseGets?: { kind: 'header-mismatch' | 'internal-error'; left: number };
  /** For tests (`ext_count`): how long tasks/cancel waits to acknowledge, after the status change went out. */
  cancelAckDelayMs?: number;
  /** For tests (`ext_ask_name`): 'asking' ignores tasks/cancel; 'cancel-ignored' once one came (each tasks/get then asks again). */
  keepAsking?: 'asking' | 'cancel-ignored';
}

/** A task tool: its listing (JSON Schema input) and the work a started task does. */
interface TaskTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object> };
}

export const TASK_TOOLS: readonly TaskTool[] = [
  {
    name: 'ext_count',
    title: 'Count (Tasks extension)',
    description: 'Counts to `steps` (default 5), one step every `stepMs` (default 1000), as a 2026-07-28 task.',
    inputSchema: {
      type: 'object',
      properties: {
        steps: { type: 'integer' },
        stepMs: { type: 'integer' },
        pollIntervalMs: { type: 'integer' },
        pollIntervalsMs: { type: 'array', items: { type: 'integer' } },
        ttlNull: { type: 'boolean' },
        notify: { type: 'boolean' },
        refuseGets: { type: 'string', enum: ['header-mismatch', 'internal-error'] },
        refuseGetsCount: { type: 'integer' },
        cancelAckDelayMs: { type: 'integer' },
      },
    },
  },
  {
    name: 'ext_ask_name',
    title: 'Ask a name (Tasks extension)',
    description: "Asks for your name mid-task (an elicitation in the task's inputRequests, answered with tasks/update), then greets you.",
    inputSchema: { type: 'object', properties: { count: { type: 'integer' }, notify: { type: 'boolean' }, keepAsking: { type: 'boolean' } } },
  },
  {
    name: 'ext_fail',
    title: 'Fail (Tasks extension)',
    description: 'Works briefly, then fails with a JSON-RPC error (task status failed).',
    inputSchema: { type: 'object', properties: { stepMs: { type: 'integer' } } },
  },
];

export const text = (s: string) => ({ content: [{ type: 'text' as const, text: s }] });

export function num(v: unknown, fallback: number, min = 0, max = 600_000): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(Math.max(Math.trunc(v), min), max) : fallback;
}

function isTerminal(status: ExtStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A tasks/get, tasks/update or tasks/cancel the book refuses: the JSON-RPC error to answer with. */
export class TaskRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The tasks of one process (every HTTP session or stateless request sees them, so a reconnected client finds them). */
export class ExtTaskBook {
  readonly tasks = new Map<string, ExtTask>();
  readonly toolCalls: Array<{ name: string; declared: boolean }> = [];
  private readonly _listeners = new Set<(task: ExtTask) => void>();

  constructor(
    readonly pollIntervalMs = 500,
    readonly ttlMs = 15 * 60_000,
  ) {}

  /** Calls `listener` with every task whose state changed; returns the unsubscribe. */
  onChange(listener: (task: ExtTask) => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  shutdown(): void {
    for (const t of this.tasks.values()) for (const timer of t.timers) clearTimeout(timer);
    this.tasks.clear();
    this._listeners.clear();
  }

  /** Starts task tool `tool` (one of {@link TASK_TOOLS}); undefined when it is no task tool. */
  start(tool: string, args: Record<string, unknown>, notify?: (params: Record<string, unknown>) => void): ExtTask | undefined {
    const work = this._work[tool];
    if (!work) return undefined;
    const now = new Date().toISOString();
    const t: ExtTask = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: args.ttlNull === true ? null : this.ttlMs,
      pollIntervalMs: num(args.pollIntervalMs, this.pollIntervalMs, 10),
      timers: new Set(),
      notify: args.notify === true ? notify : undefined,
      gets: [],
      getAnswers: [],
      updates: [],
      greetings: [],
      cancels: 0,
      tool,
      ...(args.refuseGets === 'header-mismatch' || args.refuseGets === 'internal-error' ? { refuseGets: { kind: args.refuseGets, left: num(args.refuseGetsCount, Infinity, 0, Infinity) } } : {}),
      ...(typeof args.cancelAckDelayMs === 'number' ? { cancelAckDelayMs: num(args.cancelAckDelayMs, 0, 0, 10_000) } : {}),
      ...(args.keepAsking === true ? { keepAsking: 'asking' as const } : {}),
    };
    this.tasks.set(t.taskId, t);
    work(t, args);
    return t;
  }

  /** The seed of a new task's CreateTaskResult (§Task Creation): the task without any inline payload. */
  seed(t: ExtTask): Record<string, unknown> {
    const { result: _r, error: _e, inputRequests: _i, ...seed } = detailed(t);
    return { ...seed, resultType: 'task' };
  }

  /** The task named by a tasks/* request, or -32602 (§Error Handling). */
  find(taskId: unknown): ExtTask {
    const t = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (!t) throw new TaskRequestError(-32602, 'Failed to retrieve task: Task not found');
    return t;
  }

  /** tasks/get (§Task Polling): the task with its inline payload. */
  get(t: ExtTask): Record<string, unknown> {
    if (refused(t, 'internal-error')) throw new TaskRequestError(-32603, 'Internal error: the task store is unavailable');
    t.gets.push(Date.now());
    if (t.keepAsking === 'cancel-ignored' && t.status === 'input_required') {
      this._update(t, { inputRequests: { ...t.inputRequests, [`again-${t.gets.length}`]: askName(`again-${t.gets.length}`) } });
    }
    t.getAnswers.push({ status: t.status, pollIntervalMs: t.pollIntervalMs });
    return GetTaskResultV2Schema.parse({ ...detailed(t), resultType: 'complete' });
  }

  /** tasks/cancel (§Task Cancellation): stops the work; the task ends cancelled. */
  cancel(t: ExtTask): void {
    t.cancels++;
    if (t.keepAsking) {
      t.keepAsking = 'cancel-ignored';
      return;
    }
    for (const timer of t.timers) clearTimeout(timer);
    t.timers.clear();
    this._update(t, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
  }

  /** tasks/update (§Task Update Requests): keys not outstanding are ignored; a partial answer leaves the rest outstanding. */
  answer(t: ExtTask, inputResponses: unknown): void {
    const parsed = UpdateTaskRequestV2Schema.parse({ jsonrpc: '2.0', id: 0, method: 'tasks/update', params: { taskId: t.taskId, inputResponses } }).params;
    for (const [key, response] of Object.entries(parsed.inputResponses)) {
      t.updates.push(key);
      if (t.status !== 'input_required' || !t.inputRequests?.[key]) continue;
      const r = response as { action?: string; content?: { name?: unknown } };
      const greeting = r.action === 'accept' ? `Hello, ${String(r.content?.name ?? 'stranger')}!` : `You chose to ${r.action ?? 'not'} answer.`;
      const { [key]: _answered, ...rest } = t.inputRequests;
      t.greetings.push(greeting);
      if (Object.keys(rest).length) {
        this._update(t, { inputRequests: rest });
        continue;
      }
      this._update(t, { status: 'working', statusMessage: 'Thanks', inputRequests: undefined });
      this._later(t, 50, () => this._update(t, { status: 'completed', result: text(t.greetings.join(' ')) }));
    }
  }

  /** What the server saw, per task (for the tests' `ext_stats`). */
  stats() {
    return {
      toolCalls: this.toolCalls,
      tasks: Object.fromEntries(
        [...this.tasks.values()].map((t) => [
          t.taskId,
          { tool: t.tool, status: t.status, createdAtMs: Date.parse(t.createdAt), gets: t.gets, getAnswers: t.getAnswers, updates: t.updates, cancels: t.cancels, pollIntervalMs: t.pollIntervalMs },
        ]),
      ),
    };
  }

  /** Whether a tasks/get of `taskId` is to be refused as if its Mcp-Name were wrong (counted; `refuseGets: 'header-mismatch'`). */
  refusesHeader(taskId: string): boolean {
    return refused(this.tasks.get(taskId), 'header-mismatch');
  }

  private _update(t: ExtTask, change: Partial<Pick<ExtTask, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'pollIntervalMs'>>): void {
    if (isTerminal(t.status)) return;
    Object.assign(t, change);
    t.lastUpdatedAt = new Date().toISOString();
    t.notify?.(notificationParams(t));
    for (const listener of this._listeners) listener(t);
  }

  private _later(t: ExtTask, ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      t.timers.delete(timer);
      fn();
    }, ms);
    t.timers.add(timer);
  }

  private readonly _work: Record<string, (t: ExtTask, args: Record<string, unknown>) => void> = {
    ext_count: (t, args) => {
      const steps = num(args.steps, 5, 1, 1000);
      const stepMs = num(args.stepMs, 1000, 1);
      const intervals = Array.isArray(args.pollIntervalsMs) ? args.pollIntervalsMs.map((v) => num(v, this.pollIntervalMs, 10)) : [];
      let i = 0;
      const step = () => {
        i++;
        if (i >= steps) return this._update(t, { status: 'completed', statusMessage: `counted to ${steps}`, result: text(`Counted to ${steps}.`) });
        this._update(t, { statusMessage: `${i} of ${steps}`, ...(intervals.length ? { pollIntervalMs: intervals[(i - 1) % intervals.length] } : {}) });
        this._later(t, stepMs, step);
      };
      this._later(t, stepMs, step);
    },
    ext_ask_name: (t, args) => {
      // `count` > 1: that many names at once (keys name-0…), all outstanding together.
      const count = num(args.count, 1, 1, 50);
      const keys = count === 1 ? ['name'] : Array.from({ length: count }, (_, i) => `name-${i}`);
      const ask = (key: string) => askName(count > 1 ? key : undefined);
      this._later(t, 50, () => this._update(t, { status: 'input_required', statusMessage: 'Waiting for your name', inputRequests: Object.fromEntries(keys.map((k) => [k, ask(k)])) }));
    },
    ext_fail: (t, args) => {
      this._later(t, num(args.stepMs, 500, 1), () =>
        this._update(t, { status: 'failed', statusMessage: 'Tool execution failed: API rate limit exceeded', error: { code: -32603, message: 'API rate limit exceeded' } }),
      );
    },
  };
}

/** An elicitation asking for a name (`key` said in the message when there are several). */
function askName(key?: string): Record<string, unknown> {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message: `Please enter your name${key ? ` (${key})` : ''}.`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  };
}

/** The DetailedTask of a task, as tasks/get and notifications/tasks carry it (§Task Polling). */
function detailed(t: ExtTask): Record<string, unknown> {
  return {
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
    ...(t.status === 'completed' ? { result: { resultType: 'complete', ...t.result } } : {}),
    ...(t.status === 'failed' ? { error: t.error } : {}),
    ...(t.status === 'input_required' ? { inputRequests: t.inputRequests ?? {} } : {}),
  };
}

/** The params of a `notifications/tasks` for `t`: the whole DetailedTask (§Task Status Notifications). */
export function notificationParams(t: ExtTask): Record<string, unknown> {
  return TaskStatusNotificationV2Schema.parse({ jsonrpc: '2.0', method: 'notifications/tasks', params: detailed(t) }).params as Record<string, unknown>;
}

/** Whether this tasks/get of `t` is one `refuseGets` asks to refuse with `kind` (counted). */
function refused(t: ExtTask | undefined, kind: 'header-mismatch' | 'internal-error'): boolean {
  if (t?.refuseGets?.kind !== kind || t.refuseGets.left <= 0) return false;
  t.refuseGets.left--;
  return true;
}
