/** Sending a tool call: as a task (CreateTaskResult, R-CAP-3/4) or plainly, with progress (R-PROGRESS-1). */
import { CallToolResultSchema, ErrorCode, McpError, type Progress, type Task, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../base/errors.js';
import { errorOutcome } from '../base/taskOutcome.js';
import { definitionKey } from '../config/config.js';
import { MAX_TIMER_DELAY_MS } from '../config/limits.js';
import type { McpConnection } from '../connection/connection.js';
import type { SentRecord, TrackerInternals } from './sentRecord.js';
import { taskModeFor } from './trackerTypes.js';
import { firstZodIssue, isZodError, linkedRequest, summarize } from './trackerUtil.js';

/**
 * Calls a tool on a running server: as a task when allowed (R-CAP-3/4), else plainly.
 * Resolves with the local key once the call is under way (a task) or finished (plain).
 */
export async function callTool(t: TrackerInternals, connection: McpConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, options: { mode?: 'task' | 'plain'; signal?: AbortSignal } = {}): Promise<string> {
  const client = connection.client;
  const wire = t._wire(connection);
  const serverTasks = wire.toolCallsAsTasks(connection.serverCapabilities);
  const mode = options.mode ?? taskModeFor(serverTasks, tool, t._options.optionalAsTask?.() ?? true);
  if (mode === 'task' && !serverTasks) {
    throw new McpError(ErrorCode.InvalidRequest, `Server "${connection.name}" does not support tasks for tools/call (R-CAP-3)`);
  }
  const rec: SentRecord = {
    key: `${connection.id}/call-${t._now().toString(36)}-${++t._plainCounter}`,
    serverId: connection.id,
    serverName: connection.name,
    definitionKey: definitionKey(connection.definition),
    toolName: tool.name,
    argsSummary: summarize(args),
    mode,
    origin: 'local',
    sentAt: t._now(),
    phase: 'sending',
    polls: 0,
    resultFetches: 0,
  };
  const live = t._attach(rec, connection);
  let created!: () => void;
  live.created = new Promise<void>((resolve) => (created = resolve));
  options.signal?.addEventListener('abort', () => live.controller.abort(options.signal?.reason), { once: true });
  t._records.set(rec.key, rec);
  t._changed(rec, 'added');
  t._prune();

  const onprogress = (p: Progress) => {
    rec.progress = { progress: p.progress, total: p.total, message: p.message };
    t._changed(rec);
  };

  try {
    if (mode === 'plain') {
      try {
        const result = await linkedRequest(live.controller.signal, (signal) =>
          client.callTool({ name: tool.name, arguments: args }, CallToolResultSchema, { signal, onprogress, timeout: MAX_TIMER_DELAY_MS }),
        );
        rec.outcome = { kind: 'result', result };
        rec.resultFetches = 1;
        t._finish(rec, 'done');
      } catch (e) {
        rec.outcome = errorOutcome(e);
        if (live.controller.signal.aborted) rec.cancelledByUser = true;
        t._finish(rec, 'done');
      }
      return rec.key;
    }

    let task: Task;
    try {
      const ttl = t._options.ttlMs?.();
      task = await linkedRequest(live.controller.signal, (signal) => wire.createToolTask(client, { name: tool.name, arguments: args }, { ttl, signal, onprogress }));
    } catch (e) {
      rec.outcome = errorOutcome(e);
      const abandoned = rec.cancelRequested && live.controller.signal.aborted;
      rec.cancelRequested = undefined;
      const invalid = isZodError(e);
      t._finish(
        rec,
        'error',
        abandoned
          ? 'Cancelled before the server named the task: the tools/call request was abandoned (notifications/cancelled). If the server had created the task already, it may still run there.'
          : invalid
            ? `the server answered with an invalid CreateTaskResult: ${firstZodIssue(e)}`
            : `tools/call failed: ${errorMessage(e)}`,
      );
      return rec.key;
    }
    // Re-key by the server's task id.
    t._records.delete(rec.key);
    t._onDidChange.fire({ key: rec.key, kind: 'removed' });
    rec.key = `${connection.id}/${task.taskId}`;
    t._makeRoomFor(rec);
    rec.task = task;
    rec.phase = 'tracking';
    t._records.set(rec.key, rec);
    t._changed(rec, 'added');
    if (rec.cancelRequested && rec.live === live) {
      // Cancel was pressed before the task id was known: cancel now, before anything else.
      void t._sendCancel(rec).catch((e) => connection.log.warn(`tasks/cancel failed: ${errorMessage(e)}`));
    } else {
      t._afterUpdate(rec);
    }
    return rec.key;
  } finally {
    created();
  }
}
