/**
 * What the language-model tools answer, written for a model: plain JSON objects with a short
 * `message` sentence it can act on, and a task's outcome as bounded text. Server text is data
 * here (the model reads it; nothing in this extension interprets it).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { TaskOutcome } from '../base/taskOutcome.js';
import type { SentTaskSnapshot } from '../requestor/trackerTypes.js';

/** Most characters of a result given to the model; the rest is in the task's document. */
export const MAX_RESULT_CHARS = 16_000;
/** Most characters of one tool description in `listTools`. */
export const MAX_DESCRIPTION_CHARS = 400;
/** Most characters of one tool's input schema (JSON) in `listTools`. */
export const MAX_SCHEMA_CHARS = 2_000;

/** Cuts text to `max` characters, saying how much was left out. */
export function cap(text: string, max: number, where = 'in the MCP Tasks view'): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters not shown; the full text is ${where})`;
}

/** One tool as `listTools` shows it to the model. */
export function describeTool(tool: Tool, runsAs: 'task' | 'plain'): Record<string, unknown> {
  const schema = JSON.stringify(tool.inputSchema ?? {});
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: cap(tool.description, MAX_DESCRIPTION_CHARS, 'in the server') } : {}),
    taskSupport: tool.execution?.taskSupport ?? 'none',
    runsAs,
    inputSchema: schema.length <= MAX_SCHEMA_CHARS ? tool.inputSchema : `(${schema.length} characters; too long to show: send the arguments the tool's description asks for)`,
  };
}

/** The status a model should reason with: the server's task status, or the local phase. */
export function statusOf(s: SentTaskSnapshot): string {
  if (s.mode === 'plain') return s.phase === 'sending' ? 'working' : s.outcome?.kind === 'error' || isToolError(s.outcome) ? 'failed' : 'completed';
  if (s.phase === 'sending') return 'starting';
  if (s.phase === 'paused') return 'paused (server disconnected)';
  if (s.phase === 'orphaned') return 'unreachable (server removed from the configuration)';
  if (s.phase === 'expired') return 'expired';
  if (s.phase === 'error' && !s.task) return 'failed to start';
  return s.task?.status ?? s.phase;
}

/** Whether the task can change no more (its result, if any, is here or never comes). */
export function isSettled(s: SentTaskSnapshot): boolean {
  return s.phase === 'done' || s.phase === 'expired' || s.phase === 'error' || s.phase === 'orphaned';
}

/** The status reply (`getTaskStatus`, and the start of `startTask`/`cancelTask`/`getTaskResult`). */
export function statusReply(s: SentTaskSnapshot, message: string): Record<string, unknown> {
  const p = s.progress;
  return {
    taskId: s.key,
    server: s.serverName,
    tool: s.toolName,
    status: statusOf(s),
    ...(s.task?.statusMessage ? { statusMessage: s.task.statusMessage } : {}),
    ...(p ? { progress: { progress: p.progress, ...(p.total !== undefined ? { total: p.total, percent: p.total ? Math.round((p.progress / p.total) * 100) : undefined } : {}), ...(p.message ? { message: p.message } : {}) } } : {}),
    ...(s.reason ? { note: s.reason } : {}),
    ...(s.task?.pollInterval !== undefined ? { pollIntervalMs: s.task.pollInterval } : {}),
    resultAvailable: !!s.outcome,
    message,
  };
}

/** A sentence on what to do next, by state. */
export function nextStep(s: SentTaskSnapshot): string {
  const status = statusOf(s);
  if (s.outcome) return `Task ${s.key} is ${status}: call mcpTasks_getTaskResult with taskId "${s.key}" to read its result.`;
  if (s.task?.status === 'input_required') return `Task ${s.key} waits for input the user gives in VS Code (a request from the server); tell the user, then check again with mcpTasks_getTaskResult.`;
  if (isSettled(s)) return `Task ${s.key} ended (${status}) without a result.`;
  return `Task ${s.key} is still ${status}; do other work and call mcpTasks_getTaskResult with taskId "${s.key}" later (it waits up to 60 seconds), or mcpTasks_cancelTask to stop it.`;
}

function isToolError(o: TaskOutcome | undefined): boolean {
  return o?.kind === 'result' && (o.result as CallToolResult).isError === true;
}

/** A task's outcome as text for the model: the tool's content, or the JSON-RPC error. Capped. */
export function outcomeText(o: TaskOutcome): { isError: boolean; text: string } {
  if (o.kind === 'error') {
    const data = o.data === undefined ? '' : `\ndata: ${safeJson(o.data)}`;
    return { isError: true, text: cap(`JSON-RPC error ${o.code}: ${o.message}${data}`, MAX_RESULT_CHARS) };
  }
  const r = o.result as Partial<CallToolResult>;
  const parts: string[] = [];
  for (const c of Array.isArray(r.content) ? r.content : []) parts.push(contentText(c));
  if (r.structuredContent !== undefined) parts.push(`structuredContent: ${safeJson(r.structuredContent)}`);
  if (parts.length === 0) parts.push(safeJson(r));
  return { isError: r.isError === true, text: cap(parts.join('\n\n'), MAX_RESULT_CHARS) };
}

function contentText(c: CallToolResult['content'][number]): string {
  switch (c.type) {
    case 'text':
      return c.text;
    case 'image':
    case 'audio':
      return `[${c.type}: ${c.mimeType}, ${Math.round((c.data.length * 3) / 4)} bytes; open the task in the MCP Tasks view to see it]`;
    case 'resource_link':
      return `[resource link: ${c.name} <${c.uri}>${c.description ? ` — ${c.description}` : ''}]`;
    case 'resource': {
      const res = c.resource as { uri: string; text?: string; mimeType?: string };
      return typeof res.text === 'string' ? `[resource ${res.uri}]\n${res.text}` : `[resource ${res.uri}: binary${res.mimeType ? ` ${res.mimeType}` : ''}]`;
    }
    default:
      return safeJson(c);
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
