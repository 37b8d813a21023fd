/**
 * The stored sent tasks checked record by record (trackerStore.ts reads them). A window with tasks
 * kept from an earlier one reads them right after activation (tracker.ts `restore()`), so the checks
 * are on `zod/mini`, in the part of the checks a window may need at start-up (scripts/lib/lazyParts.mjs:
 * `dist/checks.js`, with the settings' schemas): nothing of the SDK or of zod's classic API is
 * evaluated for them (bench: "startup kept tasks read").
 */
import * as z from 'zod/mini';
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
const nonEmpty = () => z.string().check(z.minLength(1));
const atMost = (chars: number) => z.string().check(z.maxLength(chars));

/**
 * The schemas, made at the first stored task read: this part is evaluated for the settings' schemas alone too
 * (a user's own values, read at every activation), which need none of them.
 */
function makeSchemas() {
  const taskSchema = z.looseObject({
    taskId: z.string(),
    status: z.enum(STATUSES),
    createdAt: z.string(),
    lastUpdatedAt: z.string(),
    ttl: z.nullable(z.number()),
    pollInterval: z.optional(z.number()),
    statusMessage: z.optional(z.string()),
  });

  const record = z.object({
    key: nonEmpty(),
    serverId: nonEmpty(),
    serverName: z.string(),
    /** `definitionKey()` of the server definition the task was sent to (absent in version 1). */
    definitionKey: z.optional(z.string()),
    toolName: z.string(),
    argsSummary: z.string(),
    mode: z.enum(['task', 'plain']),
    origin: z.enum(['local', 'listed']),
    /** A listed task the user opened: followed (polled, fetched) like one sent from here. */
    followed: z.optional(z.literal(true)),
    /** Who started it from this window: `chat` = the chat agent (language-model tools); absent = the user. */
    startedBy: z.optional(z.literal('chat')),
    sentAt: z.number(),
    phase: z.enum(['queued', 'sending', 'tracking', 'paused', 'orphaned', 'done', 'expired', 'error']),
    reason: z.optional(z.string()),
    /** The reason is a passing trouble's (requestor/sentTask.ts `setPassing`): its kind, and the text it set. */
    passingReason: z.optional(z.object({ kind: z.enum(['cancel-pending', 'result-retry', 'input-failed']), text: z.string() })),
    task: z.optional(taskSchema),
    progress: z.optional(z.object({ progress: z.number(), total: z.optional(z.number()), message: z.optional(z.string()) })),
    outcome: z.optional(
      z.union([
        z.object({ kind: z.literal('result'), result: z.record(z.string(), z.unknown()) }),
        z.object({ kind: z.literal('error'), code: z.number(), message: z.string(), data: z.optional(z.unknown()) }),
      ]),
    ),
    /** The result was too large to store; it is fetched again on request. */
    outcomeDropped: z.optional(z.boolean()),
    /** The user asked to cancel; `tasks/cancel` goes out once the task id is known and its server connected. */
    cancelRequested: z.optional(z.boolean()),
    /** Cancelled while queued: it never reached the server. */
    cancelledInQueue: z.optional(z.boolean()),
    /** When it reached a finished phase (ms since the epoch), for `maxFinishedAgeHours`. */
    finishedAt: z.optional(z.number()),
    /** A plain call the user cancelled (its request was abandoned): shown as cancelled, not failed. */
    cancelledByUser: z.optional(z.boolean()),
    polls: z._default(z.number(), 0),
    resultFetches: z._default(z.number(), 0),
    /** The task wire (protocol generation) it was sent on, so a reload resumes on the same one (absent: 2025-11-25 or by the server's capabilities). */
    wire: z.optional(z.string()),
    /**
     * 2025-11-25: the question the server asked on its task's `tasks/result` stream, open when last
     * stored (requestor/keptQuestion.ts): asked again after a reload that resumes the session. Its
     * params are the server's own request, bounded (left out beyond MAX_KEPT_QUESTION_CHARS).
     */
    openQuestion: z.optional(
      z.object({
        id: z.union([atMost(256), z.number().check(z.int())]),
        method: z.enum(['sampling/createMessage', 'elicitation/create']),
        params: z.optional(z.record(z.string(), z.unknown())),
        askedAt: z.number(),
      }),
    ),
    /** Such a question could not be answered any more: the server went on without the answer (keptQuestion.ts says why). */
    questionDropped: z.optional(
      z.object({
        kind: z.enum(['new-session', 'server-went-on', 'not-kept', 'answer-not-sent', 'cannot-ask']),
        method: atMost(64),
        detail: z.optional(atMost(300)),
      }),
    ),
    /**
     * 2025-11-25 over Streamable HTTP: the last event id of its open `tasks/result` stream and that request's id
     * (requestor/wire/resultStream.ts), to resume that stream with `Last-Event-ID` after a reload in
     * the same session. The server's own text: printable ASCII, bounded; only ever sent back as that header.
     */
    resultStream: z.optional(
      z.object({
        eventId: z.string().check(z.minLength(1), z.maxLength(MAX_RESUMPTION_TOKEN_CHARS), z.regex(/^[\x20-\x7e]+$/)),
        /** The id of the `tasks/result` request that stream answers (only its answer is taken from the replay: wire/replayFilter.ts). */
        requestId: z.number().check(z.int(), z.nonnegative(), z.maximum(Number.MAX_SAFE_INTEGER)),
      }),
    ),
    /** 2026-07-28 `inputRequests` keys already answered with `tasks/update` (each is answered once). */
    answeredInputKeys: z.optional(z.array(z.string())),
    /**
     * Where it was sent (connection/serverOrigin.ts): it is polled, fetched and cancelled only there.
     * Absent on tasks stored before origins were kept (requestor/sentOrigin.ts says what then).
     */
    sentTo: z.optional(z.object({ kind: z.enum(['http', 'stdio']), id: z.string().check(z.minLength(1), z.maxLength(128)), label: atMost(MAX_ORIGIN_LABEL_CHARS) })),
    /** Why it is held back from the server its definition reaches now (requestor/sentOrigin.ts). */
    originHold: z.optional(
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('origin-changed'), sentTo: atMost(MAX_ORIGIN_LABEL_CHARS), now: atMost(MAX_ORIGIN_LABEL_CHARS) }),
        z.object({ kind: z.literal('origin-unknown'), now: atMost(MAX_ORIGIN_LABEL_CHARS) }),
      ]),
    ),
  });
  const envelope = z.object({ version: z.union([z.literal(1), z.literal(2), z.literal(3)]), tasks: z.array(z.unknown()) });
  return { record, envelope };
}

let schemas: ReturnType<typeof makeSchemas> | undefined;

/** A stored task as its check outputs it. */
export type StoredRecord = z.output<ReturnType<typeof makeSchemas>['record']>;

/**
 * Each record is read once a window: zod's compiled object parser (made with `new Function` at a schema's first parse)
 * costs more to make than it saves here (100 kept tasks: ≈ 10 ms more in reading them), so the checks run uncompiled.
 */
const ONE_PASS = { jitless: true } as const;

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
  schemas ??= makeSchemas();
  const envelope = schemas.envelope.safeParse(raw, ONE_PASS);
  if (!envelope.success) return { tasks: [], dropped: 1 };
  const tasks: StoredSentTask[] = [];
  let dropped = 0;
  for (const t of envelope.data.tasks) {
    const r = schemas.record.safeParse(t, ONE_PASS);
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

