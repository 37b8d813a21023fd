/** The 2025-11-25 task wire (MCP 2025-11-25 "Tasks", through the SDK's experimental task API). */
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolResultSchema, GetTaskResultSchema, TaskStatusNotificationSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { MAX_TIMER_DELAY_MS } from '../../config/limits.js';
import type { TaskWire } from './taskWire.js';

export const wire2025_11_25: TaskWire = {
  generation: '2025-11-25',

  toolCallsAsTasks: (capabilities) => !!capabilities?.tasks?.requests?.tools?.call,

  listsTasks: (capabilities) => !!capabilities?.tasks?.list,

  async createToolTask(client, call, { ttl, signal, onprogress }) {
    const result = await client.request({ method: 'tools/call', params: { name: call.name, arguments: call.arguments } }, CreateTaskResultSchema, {
      task: ttl === undefined ? {} : { ttl },
      signal,
      onprogress,
    });
    return result.task;
  },

  // `request` with the schemas `client.experimental.tasks.getTask`/`getTaskResult` use: those go
  // through two more async functions each, per poll (bench/ row 2: promises, ticks and their
  // compiled code on every tasks/get).
  getTask: (client, taskId, signal) => client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, signal ? { signal } : undefined),

  getToolResult: (client, taskId, signal) => client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, { signal, timeout: MAX_TIMER_DELAY_MS }),

  cancelTask: (client, taskId, signal) => client.experimental.tasks.cancelTask(taskId, { signal }),

  listTasks: (client, cursor) => client.experimental.tasks.listTasks(cursor),

  statusNotification(message) {
    if (!('method' in message) || message.method !== 'notifications/tasks/status') return undefined;
    const parsed = TaskStatusNotificationSchema.safeParse(message);
    if (!parsed.success) return undefined;
    const { _meta: _ignored, ...task } = parsed.data.params;
    return task as Task;
  },
};
