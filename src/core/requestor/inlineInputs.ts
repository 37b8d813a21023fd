/**
 * The drive of a task on the 2026-07-28 wire (Tasks extension §Task Update Requests): the
 * `inputRequests` a task carries while `input_required` go through the very responders (consent,
 * forms, trust rules) that answer the same requests sent directly (the connection's receiver side:
 * `ReceiverSide.respondToInput`, receiver/wire/receiverSide.ts), each key presented once across
 * polls and answered once with `tasks/update`. The inline result or error of `tasks/get` /
 * `notifications/tasks` becomes the task's outcome (no second fetch). The rest of the loop is
 * {@link TaskDrive}'s.
 */
import type { Task } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import { receiverOf } from '../receiver/wire/receiverOf.js';
import { TaskDrive } from './taskDrive.js';
import type { InputRequest, TaskInline, WireTask } from './wire/taskWire.js';

/** Most answered keys remembered per task (keys are unique per task; a runaway server is bounded). */
const MAX_ANSWERED_KEYS = 500;
/** Most input requests of one task open at once; the rest are presented as these are answered (on later polls). */
export const MAX_OPEN_INPUTS = 4;

export class InlineInputDrive extends TaskDrive {
  /** The outstanding `inputRequests` of the latest update. */
  private _inputRequests: TaskInline['inputRequests'] = undefined;
  /** `inputRequests` keys presented to the user this session (each once across polls). */
  private _presented: Set<string> | undefined = undefined;
  /** Input requests presented and not yet settled. */
  private _open = 0;

  /** Takes a wire task's inline payload (outcome, outstanding input) and answers the plain Task to keep. */
  override takeInline(task: WireTask): Task {
    const rec = this._rec;
    if (task.inline === undefined && !('inline' in task)) {
      this._inputRequests = undefined;
      return task;
    }
    const { inline, ...plain } = task;
    if (inline?.outcome && !rec.outcome) {
      rec.outcome = inline.outcome;
      rec.outcomeDropped = undefined;
      rec.resultFetches++;
    }
    this._inputRequests = plain.status === 'input_required' ? inline?.inputRequests : undefined;
    return plain;
  }

  /** Presents every outstanding input request of the task not presented yet (§Task Update Requests: dedupe keys across polls). */
  protected override inputRequired(): void {
    const rec = this._rec;
    const requests = this._inputRequests;
    // Cancelled by the user, ended or forgotten: whatever the server still asks is not shown (questionDoor.ts).
    if (!this.current || !requests || !rec.task || !this._task.takesQuestions) return;
    const presented = (this._presented ??= new Set());
    const answered = new Set(rec.answeredInputKeys ?? []);
    for (const [key, request] of Object.entries(requests)) {
      if (presented.has(key) || answered.has(key)) continue;
      // A server cannot open more than a few forms or consent prompts at once for one task.
      if (this._open >= MAX_OPEN_INPUTS) break;
      presented.add(key);
      this._open++;
      void this._answer(key, request).finally(() => this._open--);
    }
  }

  private async _answer(key: string, request: InputRequest): Promise<void> {
    const rec = this._rec;
    const sent = this._task;
    const taskId = rec.task!.taskId;
    const connection = this.connection;
    let response: unknown;
    try {
      const receiver = receiverOf(connection);
      if (!receiver) throw new Error(`this host does not answer "${rec.serverName}"'s questions (its connection has no receiver)`);
      response = await this.requests.run((signal) => receiver.respondToInput(request, sent.call, key, signal));
    } catch (e) {
      if (!this.current) return;
      sent.setPassing('input-failed', `Could not answer "${rec.serverName}"'s ${request.method} request "${key}": ${errorMessage(e)}`);
      sent.changed();
      return;
    }
    // The answer goes only to the server that asked (the connection may have restarted elsewhere meanwhile: sentOrigin.ts).
    if (!this.stillAtOrigin()) return;
    try {
      await this.requests.run((signal) => this.wire.updateTask!(connection.client, taskId, { [key]: response }, signal));
    } catch (e) {
      if (!this.current) return;
      sent.setPassing('input-failed', `tasks/update for "${key}" failed: ${errorMessage(e)}`);
      sent.changed();
      return;
    }
    rec.answeredInputKeys = [...(rec.answeredInputKeys ?? []), key].slice(-MAX_ANSWERED_KEYS);
    sent.clearPassing('input-failed');
    sent.changed();
  }
}

/** A wire task split into the plain Task to keep and its inline outcome, for a task not tracked live (one the server lists). */
export function splitInline(task: WireTask): { readonly task: Task; readonly outcome?: TaskInline['outcome'] } {
  if (task.inline === undefined && !('inline' in task)) return { task };
  const { inline, ...plain } = task;
  return inline?.outcome ? { task: plain, outcome: inline.outcome } : { task: plain };
}
