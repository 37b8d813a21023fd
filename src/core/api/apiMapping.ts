/** From the tracker's and the view's shapes to the API's (`api/mcp-tasks.d.ts`). */
import { ErrorCode } from '../base/errors.js';
import type { McpTaskHint, McpTaskPriority, McpTaskResult, McpTaskSnapshot, McpTaskState } from '../../../api/mcp-tasks';
import { assertNever } from '../base/taskState.js';
import type { SentTaskSnapshot } from '../requestor/tracker.js';
import type { TaskViewState } from '../view/taskView.js';

export function apiState(s: TaskViewState): McpTaskState {
  switch (s) {
    case 'queued':
    case 'sending':
    case 'working':
    case 'paused':
    case 'orphaned':
    case 'completed':
    case 'failed':
    case 'cancelled':
    case 'expired':
    case 'error':
      return s;
    case 'running':
      // The API's states stay as they were: a plain call in flight is `sending` there (as sentApiState says).
      return 'sending';
    case 'waitingForUser':
    case 'inputRequired':
      return 'input_required';
    default:
      return assertNever(s);
  }
}

/** The API state of a sent task (the same rules as the Tasks view). */
export function sentApiState(s: SentTaskSnapshot): McpTaskState {
  if (s.cancelledInQueue) return 'cancelled';
  switch (s.phase) {
    case 'queued':
    case 'sending':
    case 'paused':
    case 'orphaned':
    case 'expired':
    case 'error':
      return s.phase;
    case 'tracking':
      return s.task?.status ?? 'working';
    case 'done':
      if (s.task) return s.task.status;
      if (!s.outcome) return 'completed';
      if (s.outcome.kind === 'error') return 'failed';
      return (s.outcome.result as { isError?: boolean }).isError ? 'failed' : 'completed';
    default:
      return assertNever(s.phase);
  }
}

export function toApiSnapshot(uri: string, s: SentTaskSnapshot, priority: McpTaskPriority, hint: McpTaskHint): McpTaskSnapshot {
  return {
    uri,
    server: s.serverName,
    method: 'tools/call',
    toolName: s.toolName,
    state: sentApiState(s),
    priority,
    hint: { ...hint },
    taskId: s.task?.taskId,
    mode: s.mode,
    message: s.task?.statusMessage ?? s.reason,
    progress: s.progress ? { ...s.progress } : undefined,
    createdAt: s.sentAt,
  };
}

/** The result of a finished sent task, or undefined while it is not finished (payload not fetched yet). */
export function resultOf(s: SentTaskSnapshot): McpTaskResult | undefined {
  if (s.cancelledInQueue) return { status: 'cancelled', message: s.reason };
  const outcome = s.outcome;
  const fromOutcome = (): McpTaskResult | undefined => {
    if (!outcome) return undefined;
    // Another extension gets copies: a snapshot's outcome is the stored one, frozen and shared (base/jsonCopy.ts `sharedJson`).
    if (outcome.kind === 'error') return { status: 'failed', error: { code: outcome.code, message: outcome.message, data: outcome.data === undefined ? undefined : structuredClone(outcome.data) } };
    const result = structuredClone(outcome.result);
    return (result as { isError?: boolean }).isError ? { status: 'failed', result } : { status: 'completed', result };
  };
  switch (s.phase) {
    case 'queued':
    case 'sending':
    case 'tracking':
    case 'paused':
    case 'orphaned':
      return undefined;
    case 'expired':
    case 'error':
      return fromOutcome() ?? { status: 'failed', error: { code: ErrorCode.InternalError, message: s.reason ?? s.phase } };
    case 'done':
      if (s.task?.status === 'cancelled') return { status: 'cancelled', message: s.task.statusMessage ?? s.reason };
      return (
        fromOutcome() ??
        (s.task?.status === 'failed'
          ? { status: 'failed', error: { code: ErrorCode.InternalError, message: s.task.statusMessage ?? s.reason ?? 'the task failed' } }
          : { status: 'failed', error: { code: ErrorCode.InternalError, message: 'its result is not available here (not kept across a reload)' } })
      );
    default:
      return assertNever(s.phase);
  }
}
