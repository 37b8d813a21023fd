/** What a headless run reports: each tool call as it ended, the requests the server sent, and what failed. */
import { type Tool } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import type { SentTaskSnapshot } from '../core/requestor/tracker.js';
import type { AnsweredRequest } from './responders.js';

/** One tool call as it ended. */
export interface ToolCallReport {
  readonly tool: string;
  readonly taskSupport: string | null;
  readonly mode: 'task' | 'plain';
  readonly args: Record<string, unknown>;
  readonly phase: SentTaskSnapshot['phase'] | 'not-sent';
  readonly taskId?: string;
  /** The server's last reported task status (task mode). */
  readonly status?: string;
  readonly statusMessage?: string;
  /** `result`: the tool answered (possibly with isError); `error`: a JSON-RPC error; `none`: no answer. */
  readonly outcome: 'result' | 'error' | 'none';
  readonly isError?: boolean;
  readonly error?: { readonly code?: number; readonly message: string };
  readonly text?: string;
  readonly structuredContent?: unknown;
  readonly polls: number;
  readonly resultFetches: number;
  readonly reason?: string;
  /** The task wire it went on (`2025-11-25`, or `2026-07-28`: the MCP Tasks extension); absent for plain calls. */
  readonly wire?: string;
}

/** A request the server sent us, with the final status of the ledger task it became. */
export interface ReceivedRequestReport extends AnsweredRequest {
  readonly finalStatus?: string;
}

export interface HeadlessReport {
  readonly client: { readonly name: string; readonly version: string };
  readonly scenario?: string;
  readonly url: string;
  readonly server?: {
    readonly name?: string;
    readonly version?: string;
    readonly protocolVersion?: string;
    /** How the revision was agreed: `server/discover` (2026-07-28 and later) or the 2025 `initialize`. */
    readonly negotiatedBy?: 'server/discover' | 'initialize';
    readonly tasksToolsCall: boolean;
    readonly taskWire: string;
  };
  readonly tools: ToolCallReport[];
  readonly received: ReceivedRequestReport[];
  /** Protocol-level failures (JSON-RPC errors, lost tasks, connection problems). A tool result with isError is not one. */
  readonly failures: string[];
  readonly exitCode: number;
  readonly durationMs: number;
}

export function toolReport(tool: Tool, args: Record<string, unknown>, s: SentTaskSnapshot | undefined, sendError?: string): ToolCallReport {
  const taskSupport = tool.execution?.taskSupport ?? null;
  if (!s) {
    return { tool: tool.name, taskSupport, mode: 'plain', args, phase: 'not-sent', outcome: 'none', error: { message: sendError ?? 'not sent' }, polls: 0, resultFetches: 0 };
  }
  const base = {
    tool: tool.name,
    taskSupport,
    mode: s.mode,
    args,
    phase: s.phase,
    ...(s.task ? { taskId: s.task.taskId, status: s.task.status, ...(s.task.statusMessage ? { statusMessage: s.task.statusMessage } : {}) } : {}),
    polls: s.polls,
    resultFetches: s.resultFetches,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.wire ? { wire: s.wire } : {}),
  };
  const o = s.outcome;
  if (!o) return { ...base, outcome: 'none' };
  if (o.kind === 'error') return { ...base, outcome: 'error', error: { code: o.code, message: o.message } };
  const parsed = CallToolResultSchema.safeParse(o.result);
  const result = parsed.success ? parsed.data : undefined;
  const text = result?.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
  return {
    ...base,
    outcome: 'result',
    isError: result?.isError === true,
    ...(text ? { text } : {}),
    ...(result?.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
  };
}

/** A protocol-level failure of a call, or undefined (an isError tool result is an answer, not a failure). */
export function failureOf(r: ToolCallReport): string | undefined {
  if (r.phase === 'not-sent') return `${r.tool}: could not be called: ${r.error?.message}`;
  if (r.outcome === 'error') return `${r.tool}: JSON-RPC error ${r.error?.code}: ${r.error?.message}`;
  if (r.phase !== 'done') return `${r.tool}: ended ${r.phase}${r.reason ? ` (${r.reason})` : ''}`;
  if (r.outcome === 'none') return `${r.tool}: no result (task ${r.status ?? 'unknown'})`;
  return undefined;
}

/** One line for the log: how the call went and what it answered. */
export function summarizeReport(r: ToolCallReport): string {
  const how = r.mode === 'task' ? `task ${r.taskId} ${r.status}` : 'plain';
  const what = r.outcome === 'result' ? `${r.isError ? 'isError result' : 'result'}: ${truncate(r.text ?? JSON.stringify(r.structuredContent ?? {}), 200)}` : r.outcome === 'error' ? `error ${r.error?.code}: ${r.error?.message}` : `no result${r.reason ? ` (${r.reason})` : ''}`;
  return `${how}, ${r.polls} poll(s), ${what}`;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
