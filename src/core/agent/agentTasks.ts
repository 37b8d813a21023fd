/**
 * The logic behind the language-model tools: the chat agent lists the running servers' tools,
 * starts a tool call as a task (answered at once with the task id), asks for its status, waits a
 * bounded time for its result, and cancels it. Every call goes through the same tracker as
 * "Run Tool…", so the task shows in the Tasks view (marked `startedBy: 'chat'`) and the user can
 * cancel it there.
 *
 * What the model may do is what the user could do by hand and no more: only servers that are
 * already running (each was started by the user's configuration, workspace trust and first-start
 * approval; nothing here starts, restarts or configures a server), only tools the server lists,
 * and only tasks it started itself (it cannot read or cancel the user's own tasks). Sampling and
 * elicitation requests its tasks cause ask the user like any other.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { Event } from '../base/event.js';
import { describeCommandLine, redactPatterns } from '../base/redact.js';
import type { RequestorConnection } from '../connection/connection.js';
import { taskModeFor, type SentTaskChange, type SentTaskSnapshot } from '../requestor/trackerTypes.js';
import { AgentInputError, type AgentInput, AgentToolNames } from './inputs.js';
import { describeTool, isSettled, nextStep, outcomeText, statusOf, statusReply } from './replies.js';

/** The part of the TaskTracker the agent tools use. */
export interface AgentTracker {
  callTool(connection: RequestorConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, options?: { signal?: AbortSignal; startedBy?: 'chat' }): Promise<string>;
  get(key: string): SentTaskSnapshot | undefined;
  snapshot(): SentTaskSnapshot[];
  cancel(key: string): Promise<SentTaskSnapshot>;
  readonly onDidChange: Event<SentTaskChange>;
}

export interface AgentTasksOptions {
  /** Every configured connection (running or not). */
  readonly connections: () => readonly RequestorConnection[];
  readonly tracker: AgentTracker;
  /** `mcpTasks.requestor.optionalToolsAsTasks`. */
  readonly optionalAsTask: () => boolean;
  /** Every page of a server's `tools/list` (default: through the connection's client). */
  readonly listTools?: (connection: RequestorConnection, signal?: AbortSignal) => Promise<Tool[]>;
}

/** A reply for the model (serialised as JSON by the UI). */
export type AgentReply = Record<string, unknown>;

export class AgentTasks {
  constructor(private readonly _o: AgentTasksOptions) {}

  /** `mcpTasks_listTools`: the running servers' tools with their task support. */
  async listTools(input: AgentInput<typeof AgentToolNames.listTools>, signal?: AbortSignal): Promise<AgentReply> {
    const all = this._o.connections();
    const chosen = input.server ? [this._server(input.server, { running: false })] : all;
    const servers: AgentReply[] = [];
    const notRunning: string[] = [];
    for (const c of chosen) {
      if (c.state.kind !== 'running') {
        notRunning.push(`${c.name} (${c.state.kind})`);
        continue;
      }
      const serverTasks = !!c.serverCapabilities?.tasks?.requests?.tools?.call;
      try {
        const tools = await this._listTools(c, signal);
        servers.push({ server: c.name, toolCallsAsTasks: serverTasks, tools: tools.map((t) => describeTool(t, taskModeFor(serverTasks, t, this._o.optionalAsTask()))) });
      } catch (e) {
        servers.push({ server: c.name, error: `tools/list failed: ${(e as Error).message}` });
      }
    }
    const message =
      servers.length === 0
        ? 'No MCP server is running in MCP Tasks. The user can add or start one in the MCP Tasks view; this tool cannot start servers.'
        : 'Call mcpTasks_startTask with a server, a tool and its arguments. Tools with runsAs "task" start in the background and answer at once with a taskId; others run to the end and return their result.';
    return { servers, ...(notRunning.length ? { notRunning } : {}), message };
  }

  /** `mcpTasks_startTask`: starts a tool call; as a task where the server and tool allow it. */
  async startTask(input: AgentInput<typeof AgentToolNames.startTask>, signal?: AbortSignal): Promise<AgentReply> {
    const connection = this._server(input.server, { running: true });
    const tools = await this._listTools(connection, signal);
    const tool = tools.find((t) => t.name === input.tool);
    if (!tool) {
      throw new AgentInputError(`Server "${connection.name}" has no tool "${input.tool}". Its tools: ${tools.map((t) => t.name).join(', ') || '(none)'}.`);
    }
    // The caller's signal may abort the call only until it is under way: a task, once created,
    // lives on (cancel it with mcpTasks_cancelTask or in the Tasks view).
    const starting = new AbortController();
    const onAbort = () => starting.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let key: string;
    try {
      key = await this._o.tracker.callTool(connection, tool, input.arguments ?? {}, { signal: starting.signal, startedBy: 'chat' });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const s = this._o.tracker.get(key);
    if (!s) throw new Error(`The call of "${tool.name}" on "${connection.name}" vanished before it could be reported.`);
    if (s.mode === 'plain') {
      const support = tool.execution?.taskSupport ?? 'none';
      const o = s.outcome ? outcomeText(s.outcome) : { isError: true, text: s.reason ?? 'no result' };
      return {
        ...statusReply(s, `"${tool.name}" cannot run as a task here (task support: ${support}), so it ran to the end${o.isError ? ' and failed' : ''}; its result is below.`),
        ranAsTask: false,
        isError: o.isError,
        result: o.text,
      };
    }
    if (!s.task) {
      const o = s.outcome ? outcomeText(s.outcome) : undefined;
      return { ...statusReply(s, `"${tool.name}" could not be started on "${connection.name}": ${s.reason ?? 'unknown error'}.`), ranAsTask: true, isError: true, ...(o ? { error: o.text } : {}) };
    }
    return {
      ...statusReply(s, `Started "${tool.name}" on "${connection.name}" as task ${s.key}; it runs in the background and the user sees it in the MCP Tasks view. ${nextStep(s)}`),
      ranAsTask: true,
    };
  }

  /** `mcpTasks_getTaskStatus`. */
  getTaskStatus(input: AgentInput<typeof AgentToolNames.getTaskStatus>): AgentReply {
    const s = this._chatTask(input.taskId);
    return statusReply(s, nextStep(s));
  }

  /** `mcpTasks_getTaskResult`: waits up to `waitSeconds` for the task to end, then its result (also of a failed task). */
  async getTaskResult(input: AgentInput<typeof AgentToolNames.getTaskResult>, signal?: AbortSignal): Promise<AgentReply> {
    let s = this._chatTask(input.taskId);
    if (!s.outcome && !isSettled(s) && input.waitSeconds > 0) {
      s = await this._waitForEnd(s.key, input.waitSeconds * 1000, signal);
    }
    if (s.outcome) {
      const o = outcomeText(s.outcome);
      return {
        ...statusReply(s, o.isError ? `Task ${s.key} ${statusOf(s)}; its error is below.` : `Task ${s.key} ${statusOf(s)}; its result is below.`),
        isError: o.isError,
        result: o.text,
      };
    }
    return statusReply(s, nextStep(s));
  }

  /** `mcpTasks_cancelTask`. */
  async cancelTask(input: AgentInput<typeof AgentToolNames.cancelTask>): Promise<AgentReply> {
    const before = this._chatTask(input.taskId);
    if (isSettled(before)) return statusReply(before, `Task ${before.key} has already ended (${statusOf(before)}); there is nothing to cancel.`);
    const s = await this._o.tracker.cancel(before.key);
    const done = s.task?.status === 'cancelled' || (s.mode === 'plain' && isSettled(s));
    return statusReply(s, done ? `Task ${s.key} is cancelled.` : `Cancel of task ${s.key} was requested: ${s.reason ?? `it is ${statusOf(s)} now`}.`);
  }

  /** The confirmation shown before `startTask` runs: what, where and with which arguments. */
  describeStart(input: AgentInput<typeof AgentToolNames.startTask>): { server: string; serverDetail: string; tool: string; args: string } {
    const c = this._find(input.server);
    return {
      server: c?.name ?? input.server,
      serverDetail: c ? describeServer(c) : 'not configured',
      tool: input.tool,
      args: JSON.stringify(input.arguments ?? {}, null, 2),
    };
  }

  /** The task a cancel would stop (for its confirmation), or undefined when the id is unknown. */
  describeTask(taskId: string): SentTaskSnapshot | undefined {
    try {
      return this._chatTask(taskId);
    } catch {
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------

  private _find(server: string): RequestorConnection | undefined {
    const all = this._o.connections();
    const byId = all.find((c) => c.id === server);
    if (byId) return byId;
    const byName = all.filter((c) => c.name === server);
    return byName.length === 1 ? byName[0] : undefined;
  }

  private _server(server: string, o: { running: boolean }): RequestorConnection {
    const all = this._o.connections();
    const byName = all.filter((c) => c.name === server);
    if (byName.length > 1 && !all.some((c) => c.id === server)) {
      throw new AgentInputError(`More than one server is named "${server}"; use one of these ids instead: ${byName.map((c) => c.id).join(', ')}.`);
    }
    const c = this._find(server);
    if (!c) throw new AgentInputError(`No MCP server "${server}" is configured in MCP Tasks. Configured servers: ${all.map((x) => x.name).join(', ') || '(none)'}.`);
    if (o.running && c.state.kind !== 'running') {
      throw new AgentInputError(`Server "${c.name}" is not running (${c.state.kind}). Only the user can start it (MCP Tasks view); this tool never starts servers.`);
    }
    return c;
  }

  /** A task this agent started: by its key, or by the server's task id when that is unambiguous. */
  private _chatTask(taskId: string): SentTaskSnapshot {
    const chat = this._o.tracker.snapshot().filter((s) => s.startedBy === 'chat');
    const found = chat.find((s) => s.key === taskId) ?? single(chat.filter((s) => s.task?.taskId === taskId));
    if (!found) {
      throw new AgentInputError(`No task "${taskId}" was started by chat in this window. Use the taskId that mcpTasks_startTask returned (tasks the user started are not available to chat).`);
    }
    return found;
  }

  private _listTools(c: RequestorConnection, signal?: AbortSignal): Promise<Tool[]> {
    return (this._o.listTools ?? listAllTools)(c, signal);
  }

  /** Resolves with the task once it settled or got its outcome, after `ms`, or on abort. */
  private _waitForEnd(key: string, ms: number, signal?: AbortSignal): Promise<SentTaskSnapshot> {
    return new Promise((resolve) => {
      let last = this._o.tracker.get(key);
      const finish = () => {
        clearTimeout(timer);
        sub.dispose();
        signal?.removeEventListener('abort', finish);
        resolve(this._o.tracker.get(key) ?? last!);
      };
      const timer = setTimeout(finish, ms);
      const sub = this._o.tracker.onDidChange((e) => {
        if (e.key !== key) return;
        const s = this._o.tracker.get(key);
        if (s) last = s;
        if (!s || s.outcome || isSettled(s)) finish();
      });
      signal?.addEventListener('abort', finish, { once: true });
      if (signal?.aborted) finish();
    });
  }
}

function single<T>(xs: T[]): T | undefined {
  return xs.length === 1 ? xs[0] : undefined;
}

/**
 * Where a server runs, for the confirmation: its URL, or its command line — redacted as the tree's
 * tooltip is (`--token=…` and credential-looking parts hidden): a chat confirmation may be on screen
 * or in a shared chat.
 */
export function describeServer(c: Pick<RequestorConnection, 'definition'>): string {
  const t = c.definition.transport;
  return redactPatterns(t.type === 'http' ? t.url : describeCommandLine(t.command, t.args));
}

/** Every page of `tools/list`. */
export async function listAllTools(connection: RequestorConnection, signal?: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await connection.client.listTools(cursor ? { cursor } : undefined, { signal });
    tools.push(...r.tools);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  return tools;
}
