/**
 * The requestor tracker's public shapes: the phases of a sent task, its snapshot, change events
 * and options, and when a tool call goes out as a task (R-CAP-3/4).
 */
import type { Task, Tool } from '@modelcontextprotocol/client';
import type { RequestorConnection } from '../connection/connection.js';
import type { TaskWire } from './wire/taskWire.js';
import type { TaskOutcome } from '../base/taskOutcome.js';
import type { TrackerStorage } from './trackerStore.js';
import type { OriginHold } from './sentOrigin.js';

/** Where a sent task stands locally (the server's view is in `task`). */
export type SentTaskPhase =
  /** Waiting for a free slot under the server's concurrency limit (`sendQueue.ts`); not sent yet. */
  | 'queued'
  /** The request is on its way (no CreateTaskResult yet / plain call running). */
  | 'sending'
  /** Being tracked: polling `tasks/get`. */
  | 'tracking'
  /** Waiting for its server to connect again (after a reload or a disconnect). */
  | 'paused'
  /** Its server definition is no longer configured: it cannot be reached; Dismiss forgets it. */
  | 'orphaned'
  /** Terminal and, where there is one, its payload fetched. */
  | 'done'
  /** The server no longer knows it, or it outlived its ttl. */
  | 'expired'
  /** Ended locally with an error (bad answers from the server, failed request). */
  | 'error';

/** The phases a sent task ends in: it never moves out of them (sentTask.ts checks every move). */
export const FINISHED_PHASES: ReadonlySet<SentTaskPhase> = new Set(['done', 'expired', 'error']);

/** A tool call this host sent, as the UI sees it (a copy). */
export interface SentTaskSnapshot {
  /**
   * Stable local key, fixed when the call is made: `<serverId>/call-<n>` for a call from this window
   * (task or plain: the server's task id is `task.taskId`), `<serverId>/<taskId>` for a listed task
   * or one stored by an earlier release. `serverId` may change later (a definition's id); the key does not.
   */
  readonly key: string;
  readonly serverId: string;
  readonly serverName: string;
  /** `definitionKey()` of the server definition it was sent to (undefined only for data from before it was kept). */
  readonly definitionKey?: string;
  readonly toolName: string;
  readonly argsSummary: string;
  readonly mode: 'task' | 'plain';
  /** `local`: sent from this window; `listed`: found through `tasks/list` (another window or session). */
  readonly origin: 'local' | 'listed';
  /** `chat`: started by the chat agent through the language-model tools (absent: by the user). */
  readonly startedBy?: 'chat';
  readonly sentAt: number;
  readonly phase: SentTaskPhase;
  /** Why the phase is `paused`, `expired` or `error`, or a one-off explanation (e.g. cancel came too late). */
  readonly reason?: string;
  /** The last Task the server reported. */
  readonly task?: Task;
  readonly progress?: { readonly progress: number; readonly total?: number; readonly message?: string };
  /** The payload of `tasks/result` (or the plain call's answer). */
  readonly outcome?: TaskOutcome;
  /** A cancel was asked for and waits for the task id or for the server to be connected. */
  readonly cancelRequested?: boolean;
  /** Cancelled while `queued`: it never reached the server. */
  readonly cancelledInQueue?: boolean;
  /** A plain call the user cancelled (its request was abandoned with notifications/cancelled). */
  readonly cancelledByUser?: boolean;
  /** When it finished here (ms): reached `done`, `expired` or `error`. */
  readonly finishedAt?: number;
  /** Number of `tasks/get` requests sent for it (for diagnostics and the benchmark). */
  readonly polls: number;
  /** Number of times its payload was fetched. */
  readonly resultFetches: number;
  /** The task wire it speaks (`2025-11-25`, or `2026-07-28` for the MCP Tasks extension); undefined for plain calls. */
  readonly wire?: string;
  /** Where it was sent (the URL or command line, redacted); undefined for a task stored before this was kept. */
  readonly sentTo?: string;
  /** Why it is held back from the server its definition reaches now (`reason` says it in words; sentOrigin.ts). */
  readonly originHold?: OriginHold;
  /**
   * The server's question for this task that could not be answered any more (2025-11-25, kept
   * across a reload: keptQuestion.ts): the server went on without the answer; `reason` says it in words.
   */
  readonly questionDropped?: { readonly kind: 'new-session' | 'server-went-on' | 'not-kept' | 'answer-not-sent' | 'cannot-ask'; readonly method: string; readonly detail?: string };
}

/** A sent task was added, changed or forgotten. Its key never changes while it is kept (sentTask.ts). */
export interface SentTaskChange {
  readonly key: string;
  readonly kind: 'added' | 'updated' | 'removed';
  /** On `updated`: the server has just named the task (`task.taskId` is new), so what names that id is this task's from now on. */
  readonly named?: true;
}

export interface TrackerOptions {
  /** Finds the connection for a server id (undefined when not configured). */
  readonly connectionFor: (serverId: string) => RequestorConnection | undefined;
  readonly storage?: TrackerStorage;
  /** ttl requested for new tasks (ms); undefined lets the server choose. */
  readonly ttlMs?: () => number | undefined;
  /** Call `optional` tools as tasks (default true). */
  readonly optionalAsTask?: () => boolean;
  /** `tasks/get` interval when the server gives no `pollInterval` (a function: read when needed, a setting). */
  readonly defaultPollIntervalMs?: number | (() => number);
  /** Smallest interval honoured, against servers that ask for a flood. */
  readonly minPollIntervalMs?: number;
  /** Consecutive failed/garbled `tasks/get` answers before giving up on a task. */
  readonly maxPollFailures?: number;
  /** `tasks/result` attempts failing with a network error before it is left to Retrieve Result (default 6). */
  readonly maxResultAttempts?: number;
  /** First delay between `tasks/result` attempts (doubling, at most 30 s; default 500 ms). */
  readonly resultRetryBaseMs?: number;
  /** Most sent tasks kept (and stored); beyond it the oldest finished ones are dropped first (default 200). */
  readonly maxStoredTasks?: () => number;
  /** Finished tasks older than this (ms since they finished) are dropped; 0: no age limit (default 7 days). */
  readonly maxFinishedAgeMs?: () => number;
  /** How often finished tasks are checked for age (default 10 min). */
  readonly pruneIntervalMs?: number;
  /** Smallest time between two writes to `storage` (default 1000 ms). */
  readonly saveIntervalMs?: number;
  readonly now?: () => number;
  /** Most questions one call may ask the user (its `input_required` rounds, or its task's input requests; default 64). */
  readonly maxQuestionsPerCall?: () => number;
  /** Most tool calls in flight per server (0 or undefined: no limit); beyond it new calls wait `queued`. */
  readonly maxConcurrentPerServer?: () => number;
  /** The task wire to speak with a connection (its protocol generation); default: what the server declares (wire/select.ts). A task keeps the wire it was sent on. */
  readonly wireFor?: (connection: RequestorConnection) => TaskWire;
}

/** Whether a tool call goes out as a task (R-CAP-3, R-CAP-4). */
export function taskModeFor(
  serverTasksToolsCall: boolean,
  tool: Pick<Tool, 'execution'> | undefined,
  optionalAsTask: boolean,
): 'task' | 'plain' {
  if (!serverTasksToolsCall) return 'plain';
  const support = tool?.execution?.taskSupport;
  switch (support) {
    case 'required':
      return 'task';
    case 'optional':
      return optionalAsTask ? 'task' : 'plain';
    case 'forbidden':
    case undefined:
      return 'plain';
    default:
      return 'plain';
  }
}
