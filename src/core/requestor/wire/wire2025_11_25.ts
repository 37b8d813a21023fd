/** The 2025-11-25 task wire (MCP 2025-11-25 "Tasks"), on the SDK's 2025 task schemas. */
import { CallToolResultSchema, CancelTaskResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ListTasksResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/core';
import type { Task } from '@modelcontextprotocol/client';
import { MAX_TIMER_DELAY_MS } from '../../config/limits.js';
import type { InputRoundsOwner, OwnedRequestOptions } from '../../connection/roundOwner.js';
import type { TaskWire } from './taskWire.js';

/** Request options naming the owner of the request's rounds, when there is one. */
function owned(options: OwnedRequestOptions, inputRounds: InputRoundsOwner | undefined): OwnedRequestOptions {
  return inputRounds ? { ...options, inputRounds } : options;
}

export const wire2025_11_25: TaskWire = {
  generation: '2025-11-25',

  toolCallsAsTasks: (capabilities) => !!capabilities?.tasks?.requests?.tools?.call,

  listsTasks: (capabilities) => !!capabilities?.tasks?.list,

  async createToolTask(client, call, { ttl, signal, onprogress, inputRounds }) {
    // R-PROGRESS-1: the task's progress outlives this request (routed by the host client until the task ends).
    const progressToken = client.taskProgressToken(onprogress);
    try {
      // R-CAP-3: the task augmentation in the request's params (SDK v2 has no option for it any more).
      const result = await client.request(
        { method: 'tools/call', params: { name: call.name, arguments: call.arguments, task: ttl === undefined ? {} : { ttl }, _meta: { progressToken } } },
        CreateTaskResultSchema,
        // A 2026-07-28 session may answer `input_required` here too: the call drives its rounds.
        owned({ signal, timeout: MAX_TIMER_DELAY_MS }, inputRounds),
      );
      client.bindTaskProgress(progressToken, result.task.taskId);
      return result.task as Task;
    } catch (e) {
      client.releaseTaskProgress(progressToken);
      throw e;
    }
  },

  // `request` with the 2025 task schemas (the SDK's task helpers are gone in v2).
  getTask: async (client, taskId, signal) => (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, signal ? { signal } : undefined)) as Task,

  // `stream`: the SDK transport's resumption (a given token resumes the cut stream with a GET carrying `Last-Event-ID`).
  getToolResult: (client, taskId, signal, stream) =>
    client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
      signal,
      timeout: MAX_TIMER_DELAY_MS,
      ...(stream?.resumptionToken ? { resumptionToken: stream.resumptionToken } : {}),
      ...(stream?.onresumptiontoken ? { onresumptiontoken: stream.onresumptiontoken } : {}),
    }),

  cancelTask: async (client, taskId, signal) => (await client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, { signal })) as Task,

  listTasks: async (client, cursor) => {
    const page = await client.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, ListTasksResultSchema);
    return { tasks: page.tasks as Task[], ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
  },

  statusNotificationMethod: 'notifications/tasks/status',

  statusNotification(message) {
    if (!('method' in message) || message.method !== 'notifications/tasks/status') return undefined;
    const parsed = TaskStatusNotificationSchema.safeParse(message);
    if (!parsed.success) return undefined;
    const { _meta: _ignored, ...task } = parsed.data.params;
    return task as Task;
  },
};
