/**
 * The 2026-07-28 task wire: the MCP Tasks extension `io.modelcontextprotocol/tasks`
 * (modelcontextprotocol/experimental-ext-tasks, specification/draft/tasks.md, SEP-2663), decoded
 * with the generated "core/v2" schemas of `@modelcontextprotocol/ext-tasks`.
 *
 * - The client capability goes on every request to such a server (§Capability Negotiation); the
 *   connection adds it (the host client's envelope on a 2026-07-28 session, the transport on a
 *   2025 one), so nothing here repeats it.
 * - `tools/call` is sent plainly, through the SDK's `callTool` (its `Mcp-Param-*` headers are the
 *   SDK's; its `input_required` rounds are driven by the call, requestor/callRounds.ts); the server alone decides (§Capability Negotiation) and
 *   answers either the `CallToolResult` or a `CreateTaskResult` marked `resultType: "task"`
 *   (§Polymorphic Results), which the SDK cannot take: the connection keeps that answer for the
 *   call (requestor/wire/tasksExtension.ts) and it is read back here.
 * - The SDK takes `resultType` off every result it hands over, so the results here are decoded
 *   without it.
 * - `tasks/get` carries the final `result` or `error` inline, and `inputRequests` while
 *   `input_required` (§Task Polling); there is no `tasks/result`: {@link getToolResult} is one
 *   more `tasks/get` (only for Retrieve Result on a task whose payload was lost).
 * - `tasks/update` answers `inputRequests` (§Task Update Requests); `tasks/cancel` is a bare
 *   acknowledgement (§Task Cancellation); `notifications/tasks` carry a whole DetailedTask
 *   (§Task Status Notifications). There is no `tasks/list`.
 * - `ttlMs` maps to the Task's `ttl` (null: unlimited) and `pollIntervalMs` to `pollInterval`.
 */
import { CreateTaskResultV2Schema, DetailedTaskV2Schema, TaskStatusNotificationV2Schema, TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { type CallToolResult, type Task } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { ErrorCode, ProtocolError } from '../../base/errors.js';
import { declaresTasksExtension } from '../../connection/tasksCapability.js';
import { z } from 'zod';
import { MAX_TIMER_DELAY_MS } from '../../config/limits.js';
import type { OwnedRequestOptions } from '../../connection/roundOwner.js';
import type { InputRequest, TaskInline, TaskWire, WireTask } from './taskWire.js';
import { taskAnswersOf } from './taskWireSide.js';

/** JSON-RPC error code of the extension: Missing Required Client Capability (§Capability Negotiation). */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const TASKS_EXTENSION_ID = TASKS_EXTENSION_ID_V2;

/** Any JSON object: what the SDK checks before the library's schema decodes it. */
const AnyResult = z.looseObject({});

interface DecodedTaskV2 {
  taskId: string;
  status: Task['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, unknown>;
}

/** A 2026-07-28 task (any of its shapes) as the tracker's Task, with its inline payload. */
export function taskFromV2(t: DecodedTaskV2): WireTask {
  const task: Task = {
    taskId: t.taskId,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttl: t.ttlMs,
    ...(t.pollIntervalMs !== undefined ? { pollInterval: t.pollIntervalMs } : {}),
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
  };
  let inline: TaskInline | undefined;
  if (t.status === 'completed' && t.result) inline = { outcome: { kind: 'result', result: CallToolResultSchema.parse(t.result) } };
  else if (t.status === 'failed' && t.error) inline = { outcome: { kind: 'error', code: t.error.code, message: t.error.message, ...(t.error.data !== undefined ? { data: t.error.data } : {}) } };
  else if (t.status === 'input_required' && t.inputRequests) inline = { inputRequests: t.inputRequests as Record<string, InputRequest> };
  return inline ? { ...task, inline } : task;
}

export const wire2026_07_28: TaskWire = {
  generation: '2026-07-28',
  serverDecides: true,

  toolCallsAsTasks: (capabilities) => declaresTasksExtension(capabilities),

  listsTasks: () => false,

  async createToolTask(client, call, { signal, onprogress, inputRounds }) {
    try {
      const options: OwnedRequestOptions = { signal, onprogress, timeout: MAX_TIMER_DELAY_MS, ...(inputRounds ? { inputRounds } : {}) };
      return { result: await client.callTool({ name: call.name, arguments: call.arguments }, options) };
    } catch (e) {
      const answer = taskAnswersOf(client).take(e);
      if (!answer) throw e;
      return taskFromV2(CreateTaskResultV2Schema.parse(answer));
    }
  },

  async getTask(client, taskId, signal) {
    const raw = await client.request({ method: 'tasks/get', params: { taskId } }, AnyResult, { signal });
    return taskFromV2(DetailedTaskV2Schema.parse(raw) as DecodedTaskV2);
  },

  async getToolResult(client, taskId, signal) {
    const task = await wire2026_07_28.getTask(client, taskId, signal);
    const outcome = task.inline?.outcome;
    if (!outcome) throw new ProtocolError(ErrorCode.InvalidRequest, `The task is ${task.status}: it has no result yet`);
    if (outcome.kind === 'error') throw new ProtocolError(outcome.code, outcome.message, outcome.data);
    return outcome.result as CallToolResult;
  },

  async cancelTask(client, taskId, signal) {
    // A bare acknowledgement (§Task Cancellation): any object.
    await client.request({ method: 'tasks/cancel', params: { taskId } }, AnyResult, { signal });
    return undefined;
  },

  async updateTask(client, taskId, inputResponses, signal) {
    await client.request({ method: 'tasks/update', params: { taskId, inputResponses: { ...inputResponses } } }, AnyResult, { signal });
  },

  listTasks: () => Promise.resolve({ tasks: [] }),

  statusNotificationMethod: 'notifications/tasks',

  statusNotification(message) {
    if (!('method' in message) || message.method !== 'notifications/tasks') return undefined;
    const parsed = TaskStatusNotificationV2Schema.safeParse(message);
    if (!parsed.success) return undefined;
    try {
      return taskFromV2(parsed.data.params as DecodedTaskV2);
    } catch {
      return undefined;
    }
  },
};

/**
 * A clear message for a `-32021` answer (§Capability Negotiation): names the server and the
 * capability it requires. Undefined for any other error.
 */
export function missingCapabilityMessage(e: unknown, serverName: string, spoken: string): string | undefined {
  if (!(e instanceof ProtocolError) || e.code !== MISSING_REQUIRED_CLIENT_CAPABILITY) return undefined;
  const required = (e.data as { requiredCapabilities?: { extensions?: Record<string, unknown> } } | undefined)?.requiredCapabilities;
  const names = Object.keys(required?.extensions ?? {});
  const what = names.length ? names.map((n) => `"${n}"`).join(', ') : `"${TASKS_EXTENSION_ID}"`;
  if (names.length && !names.includes(TASKS_EXTENSION_ID)) return `"${serverName}" requires the client capability ${what}, which this host does not support.`;
  return spoken === wire2026_07_28.generation
    ? `"${serverName}" requires the client capability ${what} (MCP Tasks extension, 2026-07-28) although this host declared it on the request.`
    : `"${serverName}" requires the client capability ${what} (MCP Tasks extension, 2026-07-28), but did not declare the extension in its own capabilities (capabilities.extensions["${TASKS_EXTENSION_ID}"]), so this host spoke ${spoken} tasks to it.`;
}
