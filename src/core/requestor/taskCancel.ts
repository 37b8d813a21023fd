/**
 * A sent task's cancel, owned by its {@link SentTask} (`cancel`): `tasks/cancel` (R-CANCEL-1/2),
 * also when pressed before the task id is known or while the server is away, or the abort of a
 * plain call. It never throws for a task that cannot be cancelled now: the task's `reason` says
 * why, or when the cancel will go out.
 */
import { ErrorCode, ProtocolError, errorMessage, isConnectionClosed } from '../base/errors.js';
import { isTerminal } from '../base/taskState.js';
import type { SentRecord } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import type { TaskDrive } from './taskDrive.js';
import { terminalStatusIn } from './trackerUtil.js';

export class TaskCancel {
  private readonly _rec: SentRecord;

  constructor(private readonly _task: SentTask) {
    this._rec = _task.record;
  }

  /**
   * The user pressed Cancel. Pressed before the CreateTaskResult arrived, the cancel goes out as
   * soon as the task id is known (and this resolves then), and pressed once more meanwhile, the
   * request is abandoned; while the server is disconnected, it goes out once the server is back.
   */
  async request(): Promise<void> {
    const rec = this._rec;
    const sent = this._task;
    const live = sent.live;
    if (rec.mode === 'plain') {
      sent.closeQuestions('cancelled by the user');
      live?.requests.abort(new Error('cancelled by the user'));
      return;
    }
    switch (rec.phase) {
      case 'orphaned':
        return this._say(`"${rec.serverName}" is no longer configured, so it cannot be cancelled from here (it may still run on that server). Dismiss it to forget it.`);
      case 'sending':
        return this._beforeNamed(live);
      case 'done':
      case 'expired':
      case 'error':
        if (rec.task && isTerminal(rec.task.status)) break;
        return this._say(rec.task ? `It is no longer tracked (${rec.phase}); nothing to cancel.` : 'It never became a task on the server; nothing to cancel.');
      case 'queued':
      case 'tracking':
      case 'paused':
        break;
    }
    if (!rec.task || isTerminal(rec.task.status)) return this._say(rec.task ? `Already ${rec.task.status}; nothing to cancel.` : 'It never became a task on the server; nothing to cancel.');
    // The user's cancel stands whatever the server answers: its questions for the task are refused
    // from now on, and the task may be removed here even if the server never confirms (tracker.ts `remove`).
    rec.cancelledByUser = true;
    sent.closeQuestions('cancelled by the user');
    if (!live || live.connection.state.kind !== 'running') {
      rec.cancelRequested = true;
      const where = rec.originHold?.kind === 'origin-changed' ? `points at ${rec.originHold.sentTo} again` : 'is connected again';
      sent.setPassing('cancel-pending', `Cancel requested: tasks/cancel goes out when "${rec.serverName}" ${where}.`);
      sent.changed();
      return;
    }
    await this.send();
  }

  /** Cancel pressed while the creating `tools/call` is out (the server has not named the task). */
  private async _beforeNamed(live: TaskDrive | undefined): Promise<void> {
    const rec = this._rec;
    const sent = this._task;
    // Whatever the server asks for it from now on is refused, and what it asked is withdrawn (questionDoor.ts).
    rec.cancelledByUser = true;
    sent.closeQuestions('cancelled by the user');
    if (live && live.answeringInputs > 0) {
      // The server waits for an answer the user has not given (an `input_required` round):
      // nothing of the call is on the wire, so it is abandoned at once and its request withdrawn.
      rec.cancelRequested = true;
      live.abandonedWhileAnswering = true;
      live.requests.abort(new Error('cancelled by the user while the server waited for an answer'));
      await live.created;
      return;
    }
    if (rec.cancelRequested && live) {
      // Pressed again while the server still has not named the task: abandon the request
      // (the SDK sends notifications/cancelled for it).
      live.requests.abort(new Error('cancelled by the user before the server named the task'));
      await live.created;
      return;
    }
    rec.cancelRequested = true;
    sent.setPassing('cancel-pending', 'Cancel requested: tasks/cancel goes out as soon as the server names the task.');
    sent.changed();
    await live?.created;
    await sent.live?.cancelling?.catch(() => undefined);
  }

  /** Sends `tasks/cancel` once (concurrent calls share it) and acts on the answer. */
  send(): Promise<void> {
    const rec = this._rec;
    const live = this._task.live;
    if (!live || !rec.task) return Promise.resolve();
    if (live.cancelling) return live.cancelling;
    if (!live.stillAtOrigin()) {
      // Held (sentOrigin.ts): the cancel goes out once the definition reaches the server it was sent to.
      rec.cancelRequested = true;
      this._task.changed();
      return Promise.resolve();
    }
    return (live.cancelling = this._send(live, rec.task.taskId).finally(() => (live.cancelling = undefined)));
  }

  private async _send(live: TaskDrive, taskId: string): Promise<void> {
    const rec = this._rec;
    const sent = this._task;
    try {
      const task = await live.requests.run((signal) => live.wire.cancelTask(live.connection.client, taskId, signal));
      rec.cancelRequested = undefined;
      if (!live.current) return;
      sent.clearPassing('cancel-pending');
      if (task) live.take(task);
      // R-CANCEL-2: the answer is the cancelled Task; act on it now (stop polling, abort an
      // outstanding tasks/result) instead of waiting for the next poll to report it.
      live.afterUpdate(/* extra */ true);
    } catch (e) {
      if (e instanceof ProtocolError && e.code === ErrorCode.InvalidParams) return this._refused(live, e);
      // Tracking stopped while the cancel was out (the task's end was pushed or polled first):
      // its abort is ours, and the task's end is already taken.
      if (!live.current && live.requests.aborted) return;
      if (!live.current) throw e;
      if (isConnectionClosed(e) || live.connection.state.kind !== 'running') {
        // Not sent: it goes out when the server is back.
        sent.host.connectionLost(live.connection);
        rec.cancelRequested = true;
        sent.setPassing('cancel-pending', `Cancel requested: tasks/cancel goes out when "${rec.serverName}" is connected again.`);
        sent.changed();
        return;
      }
      rec.cancelRequested = undefined;
      rec.reason = `tasks/cancel failed: ${errorMessage(e)}`;
      sent.changed();
      live.afterUpdate(true);
      throw e;
    }
  }

  /**
   * R-CANCEL-1: the task ended before the cancel arrived (or, R-GET-2, the server forgot it).
   * Say so, and take the terminal status the answer names; no extra tasks/get: polling goes on at
   * its pace (R-GET-1).
   */
  private _refused(live: TaskDrive, e: ProtocolError): void {
    const rec = this._rec;
    rec.cancelRequested = undefined;
    this._say(`The server could not cancel it: ${e.message}`);
    if (!live.current) return;
    const status = terminalStatusIn(e.message);
    if (status && rec.task && !isTerminal(rec.task.status)) live.take({ ...rec.task, status });
    live.afterUpdate(/* extra */ true);
  }

  private _say(reason: string): void {
    this._rec.reason = reason;
    this._task.changed();
  }
}
