/** The 2025-11-25 task wire (MCP 2025-11-25 "Tasks", through the SDK's experimental task API). */
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolResultSchema, TaskStatusNotificationSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
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

  getTask: (client, taskId, signal) => client.experimental.tasks.getTask(taskId, signal ? { signal } : undefined),

  getToolResult: (client, taskId, signal) => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { signal, timeout: MAX_TIMER_DELAY_MS }),

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
