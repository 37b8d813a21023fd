/** Sending a tool call: as a task (CreateTaskResult, R-CAP-3/4) or plainly, with progress (R-PROGRESS-1). */
import { type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError } from '../base/errors.js';
import { errorMessage } from '../base/errors.js';
import { errorOutcome } from '../base/taskOutcome.js';
import { redactingLog } from '../base/redact.js';
import { definitionKey } from '../config/config.js';
import { MAX_TIMER_DELAY_MS } from '../config/limits.js';
import type { RequestorConnection } from '../connection/connection.js';
import type { OwnedRequestOptions } from '../connection/roundOwner.js';
import type { SentTask } from './sentTask.js';
import type { SentTasks } from './sentTasks.js';
import { taskModeFor } from './trackerTypes.js';
import type { WireTask } from './wire/taskWire.js';
import { taskWires } from './wire/wires.js';
import { firstZodIssue, isZodError, summarize } from './trackerUtil.js';
import { pruneRecords } from './persistence.js';
import { makeRoomFor } from './identity.js';
import { CallRounds } from './callRounds.js';

/**
 * The call's signal goes to the SDK's request alone (its `input_required` rounds link to it only while
 * a round lasts: callRounds.ts), so its controller may serve a later request (requestScope.ts).
 */
const REUSE_SIGNAL = { reuseSignal: true } as const;

/** How a call goes out (R-CAP-3/4); throws when it must be a task and the server cannot take one. */
export function callModeFor(t: SentTasks, connection: RequestorConnection, tool: Pick<Tool, 'name' | 'execution'>, requested?: 'task' | 'plain'): 'task' | 'plain' {
  const wire = t.wireFor(connection);
  const serverTasks = wire.toolCallsAsTasks(connection.serverCapabilities);
  // 2026-07-28: the server alone decides whether a call becomes a task (Tasks extension §Capability Negotiation).
  const mode = requested ?? (wire.serverDecides && serverTasks ? 'task' : taskModeFor(serverTasks, tool, t.options.optionalAsTask?.() ?? true));
  if (mode === 'task' && !serverTasks) {
    throw new ProtocolError(ErrorCode.InvalidRequest, `Server "${connection.name}" does not support tasks for tools/call (R-CAP-3)`);
  }
  return mode;
}

/** A new local task for a tool call (not yet kept). */
export function newCallRecord(t: SentTasks, connection: RequestorConnection, toolName: string, args: Record<string, unknown>, mode: 'task' | 'plain', phase: 'queued' | 'sending', startedBy?: 'chat'): SentTask {
  const sent = newRecord(t, connection, toolName, args, mode, phase, startedBy);
  sent.callArguments = args; // in memory only (sentTask.ts)
  return sent;
}

function newRecord(t: SentTasks, connection: RequestorConnection, toolName: string, args: Record<string, unknown>, mode: 'task' | 'plain', phase: 'queued' | 'sending', startedBy?: 'chat'): SentTask {
  return t.create({
    // Its key for good: the server's task id, once it names one, is a field (`task`), never the key.
    key: t.freeKey(`${connection.id}/call-${t.now().toString(36)}-${t.nextCallNumber()}`),
    serverId: connection.id,
    serverName: connection.name,
    definitionKey: definitionKey(connection.definition),
    toolName,
    // Scrubbed as the server's log is (its known secret values included): the row, the document and storage show only this.
    argsSummary: summarize(args, redactingLog(connection.log).redactor),
    mode,
    origin: 'local',
    ...(startedBy ? { startedBy } : {}),
    sentAt: t.now(),
    phase,
    polls: 0,
    resultFetches: 0,
    ...(mode === 'task' ? { wire: t.wireFor(connection).generation } : {}),
  });
}

/**
 * Sends the call of `rec` (new, or taken from the queue): resolves with its key once it is
 * under way (a task) or finished (plain).
 */
export async function startCall(t: SentTasks, sent: SentTask, connection: RequestorConnection, tool: Pick<Tool, 'name' | 'execution'>, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
  const rec = sent.record;
  const client = connection.client;
  const wire = t.wireFor(connection);
  const mode = rec.mode;
  const queued = t.get(sent.key) === sent;
  sent.moveTo('sending');
  const live = sent.attach(connection);
  // Bound to the server it goes to now: asked about only there (sentOrigin.ts). A queued call is bound where it is sent, not where it was queued.
  const origin = connection.origin;
  rec.sentTo = origin && { kind: origin.kind, id: origin.id, label: origin.label };
  let created!: () => void;
  live.created = new Promise<void>((resolve) => (created = resolve));
  // The caller's signal aborts this call's requests while it is tracked here (RequestScope cuts the link when tracking stops).
  if (signal) live.requests.follow(signal);
  if (queued) {
    rec.reason = undefined;
    sent.changed();
  } else {
    t.add(sent);
    // The count bound only: scanning every task for its age on each new one made a burst of N
    // calls cost N² (bench: requestor host CPU); the age limit is applied on load and every pruneIntervalMs.
    pruneRecords(t, false);
  }

  const onprogress = (p: Progress) => {
    rec.progress = { progress: p.progress, total: p.total, message: p.message };
    sent.changed();
  };
  // 2026-07-28: the call drives its own `input_required` rounds (callRounds.ts).
  const inputRounds = new CallRounds(sent, connection, live);

  try {
    if (mode === 'plain') {
      try {
        const result = await live.requests.run((signal) => {
          const options: OwnedRequestOptions = { signal, onprogress, timeout: MAX_TIMER_DELAY_MS, inputRounds };
          return client.callTool({ name: tool.name, arguments: args }, options);
        }, REUSE_SIGNAL);
        // Ended meanwhile (its server stopped or crashed: tracker.ts `onServerStopped`, sentTask.ts `pause`): that ending stands.
        if (sent.live !== live) return rec.key;
        rec.outcome = { kind: 'result', result };
        rec.resultFetches = 1;
        sent.finish('done');
      } catch (e) {
        // Its server went away and ended it with the reason (tracking stopped, which also aborts
        // the request): not a cancel by the user, whatever the SDK's rejection says.
        if (sent.live !== live) return rec.key;
        rec.outcome = errorOutcome(e);
        if (live.requests.aborted) rec.cancelledByUser = true;
        sent.finish('done', live.requests.aborted ? undefined : taskWires().missingCapabilityMessage(e, connection.name, wire.generation));
      }
      return rec.key;
    }

    let created: WireTask | { readonly result: CallToolResult };
    try {
      const ttl = t.options.ttlMs?.();
      created = await live.requests.run((signal) => wire.createToolTask(client, { name: tool.name, arguments: args }, { ttl, signal, onprogress, inputRounds }), REUSE_SIGNAL);
    } catch (e) {
      rec.outcome = errorOutcome(e);
      const abandoned = rec.cancelRequested && live.requests.aborted;
      rec.cancelRequested = undefined;
      const invalid = isZodError(e);
      sent.finish(
        'error',
        abandoned && live.abandonedWhileAnswering
          ? `Cancelled while "${connection.name}" waited for your answer: the call was abandoned before it became a task.`
          : abandoned
          ? 'Cancelled before the server named the task: the tools/call request was abandoned (notifications/cancelled). If the server had created the task already, it may still run there.'
          : invalid
            ? `the server answered with an invalid CreateTaskResult: ${firstZodIssue(e)}`
            : (taskWires().missingCapabilityMessage(e, connection.name, wire.generation) ?? `tools/call failed: ${errorMessage(e)}`),
      );
      return rec.key;
    }
    if ('result' in created) {
      // 2026-07-28: the server answered the call plainly (§Polymorphic Results).
      rec.mode = 'plain';
      rec.wire = undefined;
      rec.outcome = { kind: 'result', result: created.result };
      rec.resultFetches = 1;
      sent.finish('done');
      return rec.key;
    }
    // The server named it: the task keeps its key (sentTask.ts), and is found by that id too.
    sent.named(created);
    makeRoomFor(t, sent);
    if (rec.cancelRequested && sent.live === live) {
      // Cancel was pressed before the task id was known: cancel now, before anything else.
      void sent.sendCancel().catch((e) => connection.log.warn(`tasks/cancel failed: ${errorMessage(e)}`));
    } else {
      live.afterUpdate();
    }
    return rec.key;
  } finally {
    created();
  }
}
