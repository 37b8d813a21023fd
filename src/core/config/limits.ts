/**
 * Limits of the receiver and the requestor, each a user setting (settings.ts, package.json);
 * re-exported by receiver/ledgerTypes.ts and requestor/trackerStore.ts.
 */

/** Node timers overflow above this many ms and fire at once; never pass a larger delay. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Limits of R-SEC-2 / R-SEC-3 / R-LIST-1; each is a user setting (see package.json). */
export interface LedgerLimits {
  /** Largest ttl granted; larger requests are capped and the actual ttl reported (R-TASK-3). */
  readonly maxTtlMs: number;
  /** ttl when the request names none. */
  readonly defaultTtlMs: number;
  /** Non-terminal tasks one server may have at once. */
  readonly maxLiveTasksPerServer: number;
  /** Page size of `tasks/list`. */
  readonly listPageSize: number;
  /** Task operations (create/get/result/list/cancel) per second per server, sustained. */
  readonly operationsPerSecond: number;
  /** Burst allowance on top of the sustained rate. */
  readonly operationsBurst: number;
  /** `pollInterval` suggested to requestors. */
  readonly pollIntervalMs: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = {
  maxTtlMs: 60 * 60 * 1000,
  defaultTtlMs: 15 * 60 * 1000,
  maxLiveTasksPerServer: 32,
  listPageSize: 50,
  operationsPerSecond: 50,
  operationsBurst: 200,
  pollIntervalMs: 1000,
};

/** Sent tasks kept (in memory and in storage) when the setting names no other bound. */
export const DEFAULT_MAX_STORED_TASKS = 200;

/** Finished sent tasks are forgotten this long after they finished, when the setting names no other age (7 days). */
export const DEFAULT_MAX_FINISHED_AGE_MS = 7 * 24 * 3_600_000;

/**
 * Tasks from a server's `tasks/list` kept per server definition (requestor/identity.ts): the server
 * decides what it lists, and each one is a row, a stored task and, once opened, polls.
 */
export const MAX_LISTED_TASKS_PER_SERVER = 50;

/**
 * Longest `requestState` accepted in a 2026-07-28 `input_required` answer (connection/messageBounds.ts).
 * The state is the server's, opaque, and sent back with every retry of the round: a signed token
 * or a small record fits many times over; a server growing it each round is refused there.
 */
export const MAX_REQUEST_STATE_CHARS = 256 * 1024;

/**
 * Most questions one sent call may put to the user over its life (its 2026-07-28 `input_required`
 * rounds, or its task's `inputRequests`): `mcpTasks.requestor.maxQuestionsPerCall`. A real tool asks
 * a handful; a server that keeps asking (or asks after a cancel) is stopped here.
 */
export const DEFAULT_MAX_QUESTIONS_PER_CALL = 64;

/**
 * Most `input_required` rounds one request may take (2026-07-28; the host client's `maxInputRounds`,
 * the SDK's own default): past them its owner fails it with the SDK's typed error
 * (`INPUT_REQUIRED_ROUNDS_EXCEEDED`), whatever each round asked.
 */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;

/**
 * Most JSON characters of a server's open question (its params) a sent task keeps across a reload
 * (requestor/keptQuestion.ts); a larger one is kept without them and reported as not kept.
 */
export const MAX_KEPT_QUESTION_CHARS = 64 * 1024;
