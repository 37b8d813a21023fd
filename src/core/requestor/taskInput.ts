/**
 * 2026-07-28 task input (Tasks extension §Task Update Requests): the `inputRequests` a task
 * carries while `input_required` go through the very responders (consent, forms, trust rules)
 * that answer the same requests sent directly (the connection's receiver side:
 * `ReceiverSide.respondToInput`, receiver/wire/receiverSide.ts), each key
 * presented once across polls and answered once with `tasks/update`. The inline result or error
 * of `tasks/get` / `notifications/tasks` becomes the task's outcome (no second fetch).
 */
import type { Task } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import { receiverOf } from '../receiver/wire/receiverOf.js';
import type { LiveState, SentTask } from './sentTask.js';
import type { InputRequest, WireTask } from './wire/taskWire.js';
import { clearPassingReason, setPassingReason } from './passingReason.js';
import { stillAtOrigin } from './sentOrigin.js';

/** Most answered keys remembered per task (keys are unique per task; a runaway server is bounded). */
const MAX_ANSWERED_KEYS = 500;
/** Most input requests of one task open at once; the rest are presented as these are answered (on later polls). */
export const MAX_OPEN_INPUTS = 4;

/** Takes a wire task's inline payload into the record (outcome, outstanding input) and answers the plain Task to keep. */
export function takeInline(sent: SentTask, task: WireTask): Task {
  const rec = sent.record;
  // 2025-11-25 answers carry nothing inline: keep the decoded object as it is (no copy per poll).
  if (task.inline === undefined && !('inline' in task)) {
    if (sent.live) sent.live.inputRequests = undefined;
    return task;
  }
  const { inline, ...plain } = task;
  if (inline?.outcome && !rec.outcome) {
    rec.outcome = inline.outcome;
    rec.outcomeDropped = undefined;
    rec.resultFetches++;
  }
  if (sent.live) sent.live.inputRequests = plain.status === 'input_required' ? inline?.inputRequests : undefined;
  return plain;
}

/** Presents every outstanding input request of the task not presented yet (§Task Update Requests: dedupe keys across polls). */
export function answerInputRequests(sent: SentTask): void {
  const rec = sent.record;
  const live = sent.live;
  const requests = live?.inputRequests;
  // Cancelled by the user, ended or forgotten: whatever the server still asks is not shown (questionDoor.ts).
  if (!live || !requests || !rec.task || !sent.takesQuestions) return;
  const presented = (live.presentedInputs ??= new Set());
  const answered = new Set(rec.answeredInputKeys ?? []);
  for (const [key, request] of Object.entries(requests)) {
    if (presented.has(key) || answered.has(key)) continue;
    // A server cannot open more than a few forms or consent prompts at once for one task.
    if ((live.openInputs ?? 0) >= MAX_OPEN_INPUTS) break;
    presented.add(key);
    live.openInputs = (live.openInputs ?? 0) + 1;
    void answerOne(sent, live, key, request).finally(() => live.openInputs!--);
  }
}

async function answerOne(sent: SentTask, live: LiveState, key: string, request: InputRequest): Promise<void> {
  const rec = sent.record;
  const taskId = rec.task!.taskId;
  const connection = live.connection;
  let response: unknown;
  try {
    const receiver = receiverOf(connection);
    if (!receiver) throw new Error(`this host does not answer "${rec.serverName}"'s questions (its connection has no receiver)`);
    response = await live.requests.run((signal) => receiver.respondToInput(request, sent.call, key, signal));
  } catch (e) {
    if (sent.live !== live) return;
    setPassingReason(rec, 'input-failed', `Could not answer "${rec.serverName}"'s ${request.method} request "${key}": ${errorMessage(e)}`);
    sent.changed();
    return;
  }
  // The answer goes only to the server that asked (the connection may have restarted elsewhere meanwhile: sentOrigin.ts).
  if (sent.live !== live || !stillAtOrigin(sent)) return;
  try {
    await live.requests.run((signal) => sent.wire(connection).updateTask!(connection.client, taskId, { [key]: response }, signal));
  } catch (e) {
    if (sent.live !== live) return;
    setPassingReason(rec, 'input-failed', `tasks/update for "${key}" failed: ${errorMessage(e)}`);
    sent.changed();
    return;
  }
  rec.answeredInputKeys = [...(rec.answeredInputKeys ?? []), key].slice(-MAX_ANSWERED_KEYS);
  clearPassingReason(rec, 'input-failed');
  sent.changed();
}
