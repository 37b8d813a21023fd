/**
 * Section 2's (`requestor`) server: a real SDK `Server` with the SDK's `InMemoryTaskStore`, whose `slow` tool
 * (task support `required`) runs as a task for `ms` milliseconds and suggests `pollInterval`
 * 250 ms. It records, per task, when each `tasks/get` and `tasks/result` arrived, so the bench
 * can count the requestor's polling from the server's side. Tools: `slow { ms, chars? }` (`chars`: a result
 * of that many characters, for the scale section), `stats`, `reset`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const POLL_INTERVAL_MS = 250;

/** What the server saw of one task (times in ms on the server's `performance.now()` clock). */
export interface TaskRecordStats {
  readonly createdAt: number;
  completedAt?: number;
  readonly gets: number[];
  readonly results: number[];
}

/** `chars` characters of numbered lines (what a tool's large text output looks like). */
export function largeText(chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const line = `${String(i).padStart(7, '0')}: {"id":${i},"name":"item-${i}","value":${(i * 7919) % 100003},"tags":["alpha","beta"]}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

export async function main(): Promise<void> {
  const store = new InMemoryTaskStore();
  const server = new Server(
    { name: 'bench-requestor-server', version: '1.0.0' },
    { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store },
  );
  let tasks = new Map<string, TaskRecordStats>();
  const timers = new Set<NodeJS.Timeout>();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'slow', description: 'Finishes after `ms` ms.', inputSchema: { type: 'object', properties: { ms: { type: 'number' }, chars: { type: 'number' } } }, execution: { taskSupport: 'required' } },
      { name: 'stats', description: 'Per-task tasks/get and tasks/result arrival times.', inputSchema: { type: 'object' } },
      { name: 'reset', description: 'Forgets all tasks.', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    if (name === 'stats') return { content: [{ type: 'text', text: JSON.stringify(Object.fromEntries(tasks)) }] };
    if (name === 'reset') {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      tasks = new Map();
      return { content: [{ type: 'text', text: '{}' }] };
    }
    if (name !== 'slow' || !request.params.task || !extra.taskStore) {
      return { content: [{ type: 'text', text: `${name}: call it as a task` }], isError: true };
    }
    const args = request.params.arguments as { ms?: unknown; chars?: unknown } | undefined;
    const ms = Number(args?.ms ?? 5000);
    // `chars`: a result of that many characters (the scale section's large result), lines of text like a tool's output.
    const chars = Number(args?.chars ?? 0);
    const task = await extra.taskStore.createTask({ ttl: request.params.task.ttl ?? 600_000, pollInterval: POLL_INTERVAL_MS });
    const rec: TaskRecordStats = { createdAt: performance.now(), gets: [], results: [] };
    tasks.set(task.taskId, rec);
    const bound = extra.taskStore;
    const timer = setTimeout(() => {
      timers.delete(timer);
      rec.completedAt = performance.now();
      const result: CallToolResult = { content: [{ type: 'text', text: chars > 0 ? largeText(chars) : `slept ${ms} ms` }] };
      // The request-bound store also sends notifications/tasks/status (the SDK's default behaviour).
      void bound.storeTaskResult(task.taskId, 'completed', result).catch(() => undefined);
    }, ms);
    timers.add(timer);
    return { task } as never;
  });

  const transport = new StdioServerTransport();
  await server.connect(transport);
  // Count tasks/get and tasks/result as they arrive, before the SDK handles them.
  const onmessage = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    if ('method' in message && (message.method === 'tasks/get' || message.method === 'tasks/result')) {
      const id = (message.params as { taskId?: unknown } | undefined)?.taskId;
      const rec = typeof id === 'string' ? tasks.get(id) : undefined;
      if (rec) (message.method === 'tasks/get' ? rec.gets : rec.results).push(performance.now());
    }
    (onmessage as (m: JSONRPCMessage, e?: unknown) => void).call(transport, message, extra);
  };
}
