/** Cancelling a sent task: `tasks/cancel` (R-CANCEL-1/2), also when pressed before the task id is known or while the server is away. */
import { ErrorCode, ProtocolError, isConnectionClosed } from '../base/errors.js';
import { errorMessage } from '../base/errors.js';
import { isTerminal } from '../base/taskState.js';
import { toSnapshot } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import type { SentTaskSnapshot } from './trackerTypes.js';
import { terminalStatusIn } from './trackerUtil.js';
import { afterUpdate } from './polling.js';
import { applyTask } from './taskUpdates.js';
import { clearPassingReason, setPassingReason } from './passingReason.js';
import { stillAtOrigin } from './sentOrigin.js';

/**
 * Cancels a sent task (`tasks/cancel`) or aborts a plain call. Never throws for a task that
 * cannot be cancelled now; the snapshot's `reason` says why, or when the cancel will go out:
 * pressed before the CreateTaskResult arrived, it goes out as soon as the task id is known (and
 * this resolves then), and pressed once more meanwhile, the request is abandoned; while the
 * server is disconnected, it goes out once the server is back.
 */
export async function cancelSentTask(sent: SentTask): Promise<SentTaskSnapshot> {
  const rec = sent.record;
  if (rec.mode === 'plain') {
    sent.closeQuestions('cancelled by the user');
    sent.live?.requests.abort(new Error('cancelled by the user'));
    return toSnapshot(rec);
  }
  switch (rec.phase) {
    case 'orphaned':
      rec.reason = `"${rec.serverName}" is no longer configured, so it cannot be cancelled from here (it may still run on that server). Dismiss it to forget it.`;
      sent.changed();
      return toSnapshot(rec);
    case 'sending': {
      // Whatever the server asks for it from now on is refused, and what it asked is withdrawn (questionDoor.ts).
      rec.cancelledByUser = true;
      sent.closeQuestions('cancelled by the user');
      if (sent.live && sent.live.answeringInputs > 0) {
        // The server waits for an answer the user has not given (an `input_required` round):
        // nothing of the call is on the wire, so it is abandoned at once and its request withdrawn.
        rec.cancelRequested = true;
        sent.live.abandonedWhileAnswering = true;
        sent.live.requests.abort(new Error('cancelled by the user while the server waited for an answer'));
        await sent.live.created;
        return toSnapshot(rec);
      }
      if (rec.cancelRequested && sent.live) {
        // Pressed again while the server still has not named the task: abandon the request
        // (the SDK sends notifications/cancelled for it).
        sent.live.requests.abort(new Error('cancelled by the user before the server named the task'));
        await sent.live.created;
        return toSnapshot(rec);
      }
      rec.cancelRequested = true;
      setPassingReason(rec, 'cancel-pending', 'Cancel requested: tasks/cancel goes out as soon as the server names the task.');
      sent.changed();
      await sent.live?.created;
      await sent.live?.cancelling?.catch(() => undefined);
      return toSnapshot(rec);
    }
    case 'done':
    case 'expired':
    case 'error':
      if (rec.task && isTerminal(rec.task.status)) break;
      rec.reason = rec.task ? `It is no longer tracked (${rec.phase}); nothing to cancel.` : 'It never became a task on the server; nothing to cancel.';
      sent.changed();
      return toSnapshot(rec);
    case 'tracking':
    case 'paused':
      break;
  }
  if (rec.task && !isTerminal(rec.task.status)) {
    // The user's cancel stands whatever the server answers: its questions for the task are refused
    // from now on, and the task may be removed here even if the server never confirms (tracker.ts `remove`).
    rec.cancelledByUser = true;
    sent.closeQuestions('cancelled by the user');
  }
  if (!rec.task || isTerminal(rec.task.status)) {
    rec.reason = rec.task ? `Already ${rec.task.status}; nothing to cancel.` : 'It never became a task on the server; nothing to cancel.';
    sent.changed();
    return toSnapshot(rec);
  }
  const live = sent.live;
  if (!live || live.connection.state.kind !== 'running') {
    rec.cancelRequested = true;
    const where = rec.originHold?.kind === 'origin-changed' ? `points at ${rec.originHold.sentTo} again` : 'is connected again';
    setPassingReason(rec, 'cancel-pending', `Cancel requested: tasks/cancel goes out when "${rec.serverName}" ${where}.`);
    sent.changed();
    return toSnapshot(rec);
  }
  await sendCancel(sent);
  return toSnapshot(rec);
}

/** Sends `tasks/cancel` once (concurrent calls share it) and acts on the answer. */
export function sendCancel(sent: SentTask): Promise<void> {
  const rec = sent.record;
  const live = sent.live;
  if (!live || !rec.task) return Promise.resolve();
  if (live.cancelling) return live.cancelling;
  if (!stillAtOrigin(sent)) {
    // Held (sentOrigin.ts): the cancel goes out once the definition reaches the server it was sent to.
    rec.cancelRequested = true;
    sent.changed();
    return Promise.resolve();
  }
  const taskId = rec.task.taskId;
  const call = (async () => {
    try {
      const task = await live.requests.run((signal) => sent.wire(live.connection).cancelTask(live.connection.client, taskId, signal));
      rec.cancelRequested = undefined;
      if (sent.live !== live) return;
      clearPassingReason(rec, 'cancel-pending');
      if (task) applyTask(sent, task);
      // R-CANCEL-2: the answer is the cancelled Task; act on it now (stop polling, abort an
      // outstanding tasks/result) instead of waiting for the next poll to report it.
      afterUpdate(sent, /* extra */ true);
    } catch (e) {
      if (!(e instanceof ProtocolError && e.code === ErrorCode.InvalidParams)) {
        // Tracking stopped while the cancel was out (the task's end was pushed or polled first):
        // its abort is ours, and the task's end is already taken.
        if (sent.live !== live && live.requests.aborted) return;
        if (sent.live !== live) throw e;
        if (isConnectionClosed(e) || live.connection.state.kind !== 'running') {
          // Not sent: it goes out when the server is back.
          sent.host.connectionLost(live.connection);
          rec.cancelRequested = true;
          setPassingReason(rec, 'cancel-pending', `Cancel requested: tasks/cancel goes out when "${rec.serverName}" is connected again.`);
          sent.changed();
          return;
        }
        rec.cancelRequested = undefined;
        rec.reason = `tasks/cancel failed: ${errorMessage(e)}`;
        sent.changed();
        afterUpdate(sent, true);
        throw e;
      }
      rec.cancelRequested = undefined;
      // R-CANCEL-1: the task ended before the cancel arrived (or, R-GET-2, the server forgot it).
      // Say so, and take the terminal status the answer names; no extra tasks/get: polling
      // goes on at its pace (R-GET-1).
      rec.reason = `The server could not cancel it: ${e.message}`;
      sent.changed();
      if (sent.live !== live) return;
      const status = terminalStatusIn(e.message);
      if (status && rec.task && !isTerminal(rec.task.status)) applyTask(sent, { ...rec.task, status });
      afterUpdate(sent, /* extra */ true);
    } finally {
      live.cancelling = undefined;
    }
  })();
  live.cancelling = call;
  return call;
}
