/** Fetching a sent task's payload with `tasks/result` (R-RESULT-1/2/4), retried with backoff after network errors. */
import { type CallToolResult } from '@modelcontextprotocol/client';
import { isConnectionClosed } from '../base/errors.js';
import { errorMessage } from '../base/errors.js';
import { errorOutcome, type TaskOutcome } from '../base/taskOutcome.js';
import { isTerminal } from '../base/taskState.js';
import type { LiveState, SentTask } from './sentTask.js';
import { backoffMs, isNetworkError, statusImpliedBy } from './trackerUtil.js';
import { afterUpdate } from './polling.js';
import { clearPassingReason, setPassingReason } from './passingReason.js';
import { stillAtOrigin } from './sentOrigin.js';

/**
 * Fetches `tasks/result` once per record (R-RESULT-1/2/4): the result, or the JSON-RPC error.
 * A network error is retried with backoff; after `maxResultAttempts` a terminal task rests as
 * `done` without payload, and Retrieve Result (or the next connect) asks again.
 */
export function fetchResult(sent: SentTask): Promise<void> {
  const rec = sent.record;
  const live = sent.live;
  if (!live || !rec.task || rec.outcome) return Promise.resolve();
  if (live.resultCall) return live.resultCall;
  if (live.resultRetry || !stillAtOrigin(sent)) return Promise.resolve();
  const taskId = rec.task.taskId;
  // A terminal task's result is answered at once (R-RESULT-1), so nothing would be saved by
  // aborting it, and an answer after tracking stopped is ignored (`sent.live !== live`): no
  // AbortSignal then (one per task; bench: requestor host CPU). While `input_required` it waits (R-RESULT-2/4)
  // and must be abortable.
  const terminal = isTerminal(rec.task.status);
  const call = (async () => {
    let outcome: TaskOutcome;
    try {
      const get = (signal?: AbortSignal) => sent.wire(live.connection).getToolResult(live.connection.client, taskId, signal);
      const result: CallToolResult = await (terminal ? get() : live.requests.run(get));
      outcome = { kind: 'result', result };
    } catch (e) {
      if (sent.live !== live) return;
      live.resultCall = undefined;
      if (isConnectionClosed(e) || live.connection.state.kind !== 'running') {
        sent.host.connectionLost(live.connection);
        return;
      }
      if (isNetworkError(e)) {
        resultFailedToArrive(sent, live, e);
        return;
      }
      outcome = errorOutcome(e);
    }
    if (sent.live !== live) return;
    live.resultCall = undefined;
    live.resultFailures = 0;
    rec.resultFetches++;
    rec.outcome = outcome;
    rec.outcomeDropped = undefined;
    clearPassingReason(rec, 'result-retry');
    if (rec.phase === 'done' || isTerminal(rec.task!.status)) {
      sent.finish('done');
      return;
    }
    // tasks/result answered, so the task is terminal (R-RESULT-2); its final status comes with
    // the next tasks/get when it is due — never sooner than the pollInterval (R-GET-1).
    sent.changed();
    afterUpdate(sent, /* extra */ true);
  })();
  live.resultCall = call;
  return call;
}

export function resultFailedToArrive(sent: SentTask, live: LiveState, e: unknown): void {
  const rec = sent.record;
  live.resultFailures++;
  const terminal = !!rec.task && isTerminal(rec.task.status);
  if (live.resultFailures >= (sent.host.options.maxResultAttempts ?? 6)) {
    live.resultFailures = 0;
    // Not terminal (input_required): polling goes on and asks again on the next such answer.
    if (terminal || rec.phase === 'done') {
      setPassingReason(rec, 'result-retry', `tasks/result could not reach "${rec.serverName}" (${errorMessage(e)}); Retrieve Result tries again.`);
      sent.finish('done');
    }
    return;
  }
  const delay = backoffMs(live.resultFailures, sent.host.options.resultRetryBaseMs ?? 500);
  setPassingReason(rec, 'result-retry', `tasks/result failed (${errorMessage(e)}); trying again in ${Math.ceil(delay / 100) / 10} s`);
  sent.changed();
  live.resultRetry = setTimeout(() => {
    live.resultRetry = undefined;
    if (sent.live === live) void fetchResult(sent);
  }, delay);
}

/** Finishes a task whose payload is known but whose final status could not be polled. */
export function finishWithOutcome(sent: SentTask): void {
  const rec = sent.record;
  if (rec.task && rec.outcome && !isTerminal(rec.task.status)) rec.task = { ...rec.task, status: statusImpliedBy(rec.outcome) };
  sent.finish('done');
}
