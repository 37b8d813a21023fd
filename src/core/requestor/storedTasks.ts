/**
 * The stored sent tasks checked record by record (trackerStore.ts reads them): in the protocol
 * part (scripts/lib/lazyParts.mjs), evaluated at the first stored task read, not at activation.
 */
import { z } from 'zod';
import { nestsDeeperThan } from '../base/jsonDepth.js';
import { MAX_ORIGIN_LABEL_CHARS } from '../connection/serverOrigin.js';
import type { StoredSentTask } from './trackerStore.js';
import { MAX_KEPT_QUESTION_CHARS } from '../config/limits.js';
import { MAX_RESUMPTION_TOKEN_CHARS } from './wire/resultStream.js';

/** Whether a kept question's params are within the bounds a stored one keeps (size and depth). */
function keptParamsFit(params: unknown): boolean {
  return !nestsDeeperThan(params) && JSON.stringify(params).length <= MAX_KEPT_QUESTION_CHARS;
}

const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;

const taskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(STATUSES),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttl: z.number().nullable(),
  pollInterval: z.number().optional(),
  statusMessage: z.string().optional(),
});

export const recordSchema = z.object({
  key: z.string().min(1),
  serverId: z.string().min(1),
  serverName: z.string(),
  /** `definitionKey()` of the server definition the task was sent to (absent in version 1). */
  definitionKey: z.string().optional(),
  toolName: z.string(),
  argsSummary: z.string(),
  mode: z.enum(['task', 'plain']),
  origin: z.enum(['local', 'listed']),
  /** A listed task the user opened: followed (polled, fetched) like one sent from here. */
  followed: z.literal(true).optional(),
  /** Who started it from this window: `chat` = the chat agent (language-model tools); absent = the user. */
  startedBy: z.literal('chat').optional(),
  sentAt: z.number(),
  phase: z.enum(['queued', 'sending', 'tracking', 'paused', 'orphaned', 'done', 'expired', 'error']),
  reason: z.string().optional(),
  /** The reason is a passing trouble's (requestor/sentTask.ts `setPassing`): its kind, and the text it set. */
  passingReason: z.object({ kind: z.enum(['cancel-pending', 'result-retry', 'input-failed']), text: z.string() }).optional(),
  task: taskSchema.optional(),
  progress: z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() }).optional(),
  outcome: z
    .union([
      z.object({ kind: z.literal('result'), result: z.record(z.string(), z.unknown()) }),
      z.object({ kind: z.literal('error'), code: z.number(), message: z.string(), data: z.unknown().optional() }),
    ])
    .optional(),
  /** The result was too large to store; it is fetched again on request. */
  outcomeDropped: z.boolean().optional(),
  /** The user asked to cancel; `tasks/cancel` goes out once the task id is known and its server connected. */
  cancelRequested: z.boolean().optional(),
  /** Cancelled while queued: it never reached the server. */
  cancelledInQueue: z.boolean().optional(),
  /** When it reached a finished phase (ms since the epoch), for `maxFinishedAgeHours`. */
  finishedAt: z.number().optional(),
  /** A plain call the user cancelled (its request was abandoned): shown as cancelled, not failed. */
  cancelledByUser: z.boolean().optional(),
  polls: z.number().default(0),
  resultFetches: z.number().default(0),
  /** The task wire (protocol generation) it was sent on, so a reload resumes on the same one (absent: 2025-11-25 or by the server's capabilities). */
  wire: z.string().optional(),
  /**
   * 2025-11-25: the question the server asked on its task's `tasks/result` stream, open when last
   * stored (requestor/keptQuestion.ts): asked again after a reload that resumes the session. Its
   * params are the server's own request, bounded (left out beyond MAX_KEPT_QUESTION_CHARS).
   */
  openQuestion: z
    .object({
      id: z.union([z.string().max(256), z.number().int()]),
      method: z.enum(['sampling/createMessage', 'elicitation/create']),
      params: z.record(z.string(), z.unknown()).optional(),
      askedAt: z.number(),
    })
    .optional(),
  /** Such a question could not be answered any more: the server went on without the answer (keptQuestion.ts says why). */
  questionDropped: z
    .object({
      kind: z.enum(['new-session', 'server-went-on', 'not-kept', 'answer-not-sent', 'cannot-ask']),
      method: z.string().max(64),
      detail: z.string().max(300).optional(),
    })
    .optional(),
  /**
   * 2025-11-25 over Streamable HTTP: the last event id of its open `tasks/result` stream and that request's id
   * (requestor/wire/resultStream.ts), to resume that stream with `Last-Event-ID` after a reload in
   * the same session. The server's own text: printable ASCII, bounded; only ever sent back as that header.
   */
  resultStream: z
    .object({
      eventId: z
        .string()
        .min(1)
        .max(MAX_RESUMPTION_TOKEN_CHARS)
        .regex(/^[\x20-\x7e]+$/),
      /** The id of the `tasks/result` request that stream answers (only its answer is taken from the replay: wire/replayFilter.ts). */
      requestId: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    })
    .optional(),
  /** 2026-07-28 `inputRequests` keys already answered with `tasks/update` (each is answered once). */
  answeredInputKeys: z.array(z.string()).optional(),
  /**
   * Where it was sent (connection/serverOrigin.ts): it is polled, fetched and cancelled only there.
   * Absent on tasks stored before origins were kept (requestor/sentOrigin.ts says what then).
   */
  sentTo: z.object({ kind: z.enum(['http', 'stdio']), id: z.string().min(1).max(128), label: z.string().max(MAX_ORIGIN_LABEL_CHARS) }).optional(),
  /** Why it is held back from the server its definition reaches now (requestor/sentOrigin.ts). */
  originHold: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('origin-changed'), sentTo: z.string().max(MAX_ORIGIN_LABEL_CHARS), now: z.string().max(MAX_ORIGIN_LABEL_CHARS) }),
      z.object({ kind: z.literal('origin-unknown'), now: z.string().max(MAX_ORIGIN_LABEL_CHARS) }),
    ])
    .optional(),
});

const envelopeSchema = z.object({ version: z.union([z.literal(1), z.literal(2), z.literal(3)]), tasks: z.array(z.unknown()) });

/**
 * Reads stored sent tasks: this version (3, a JSON string), version 2 (the same envelope as an
 * object) or version 1 (keyed by server id only: its records come without `definitionKey` and
 * are adopted by the definition holding that id). Anything unreadable is dropped, record by
 * record, and a result nested deeper than a message from a server may be is left out; never throws.
 */
export function validStoredTasks(raw: unknown): { tasks: StoredSentTask[]; dropped: number } {
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      return { tasks: [], dropped: 1 };
    }
  }
  const envelope = envelopeSchema.safeParse(raw);
  if (!envelope.success) return { tasks: [], dropped: 1 };
  const tasks: StoredSentTask[] = [];
  let dropped = 0;
  for (const t of envelope.data.tasks) {
    const r = recordSchema.safeParse(t);
    if (!r.success) dropped++;
    else if (r.data.openQuestion?.params && !keptParamsFit(r.data.openQuestion.params)) {
      // Written by hand or by an older release: kept without its params, so it is not asked again (keptQuestion.ts).
      const { params: _large, ...question } = r.data.openQuestion;
      tasks.push({ ...r.data, openQuestion: question } as StoredSentTask);
    } else if (r.data.outcome && nestsDeeperThan(r.data.outcome)) {
      // Stored before results were bounded where they arrive: kept without it, which Retrieve Result asks for again.
      const { outcome: _deep, ...rest } = r.data;
      tasks.push({ ...rest, outcomeDropped: true } as StoredSentTask);
    } else tasks.push(r.data as StoredSentTask);
  }
  return { tasks, dropped };
}

