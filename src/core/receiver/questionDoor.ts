/**
 * The one door every question a server puts to the user comes through: a plain or task-augmented
 * `sampling/createMessage` / `elicitation/create`, the requests of a call's own 2026-07-28
 * `input_required` round, and the `inputRequests` of a 2026-07-28 task. Whatever carries it, a
 * question here
 * - has its owner named when it arrives ({@link QuestionOwner}), never guessed later;
 * - has its params checked once, in the host's one sentence ({@link checkQuestion});
 * - is charged to its server's one budget (the live tasks and open requests of `serverBudget.ts`):
 *   beyond it, refused with -32600 naming the server and the setting. A round is charged as one:
 *   a round larger than what is left fails its call before any of it is shown;
 * - is refused once its call or task has ended, was cancelled by the user or was forgotten (its
 *   owner says so), and withdrawn (its signal aborted) when that happens while it is open ({@link questionSignal});
 * - counts against its call's bound (`mcpTasks.requestor.maxQuestionsPerCall`).
 */
import { CreateMessageRequestSchema } from '@modelcontextprotocol/core';
import { ErrorCode, LimitExceededError, ProtocolError } from '../base/errors.js';
import { invalidParams, type ParamIssues } from '../base/paramIssues.js';
import type { DisposableStore, IDisposable } from '../base/lifecycle.js';
import { linkedAbort } from '../base/linkedAbort.js';
import { elicitRequestSchema } from './elicitSchema.js';

/** Setting that bounds how many questions one call (its rounds) or one task (its input requests) may ask. */
export const MAX_QUESTIONS_SETTING = 'mcpTasks.requestor.maxQuestionsPerCall';
export { DEFAULT_MAX_QUESTIONS_PER_CALL } from '../config/limits.js';

/**
 * A call this host sent, as the questions asked for it see it. Made once per call by its owner
 * (the requestor), who closes its questions when the call ends, is cancelled by the user or is
 * forgotten: `closed` aborts, and each question linked with `onClose` is withdrawn.
 */
export interface CallLink {
  /** The tracker key of the call (it changes when the call becomes a task: read it when needed). */
  readonly key: () => string;
  readonly serverId: string;
  readonly serverName: string;
  /** The server's task id, once the call is a task. */
  readonly taskId?: () => string | undefined;
  /**
   * Aborted once no question may be asked for the call any more (it ended, was cancelled or forgotten):
   * for a question that outlives its handler's turn (a 2025-11-25 question's composite signal). A question
   * answered here links with {@link onClose} and checks with {@link isClosed}, which make no signal of the call's.
   */
  readonly closed: AbortSignal;
  /** Whether no question may be asked for the call any more. */
  readonly isClosed: () => boolean;
  /**
   * Calls `withdraw` with the reason once the call's questions close (at once if they have), until the
   * returned link is disposed.
   */
  readonly onClose: (withdraw: (reason: Error) => void) => IDisposable;
  /** Most questions the call may ask over its life (its rounds, or its task's input requests). */
  readonly maxQuestions: () => number;
  /** Told when one of the call's questions is being answered, and when that ends (the call waits on the user meanwhile). */
  readonly answering?: (open: boolean) => void;
  /**
   * Told of a 2025-11-25 question the server asked for the call on its task's `tasks/result`
   * stream, so the call keeps it across a reload (requestor/keptQuestion.ts); the returned function
   * is called once the question is over (answered, refused, or withdrawn by the server or the call).
   */
  readonly asked?: (question: KeptQuestion) => () => void;
}

/** A server's question as a call keeps it until it is answered: its JSON-RPC id, method and params. */
export interface KeptQuestion {
  readonly id: string | number;
  readonly method: string;
  readonly params?: unknown;
}

/** Who a question is asked for, known when it arrives. */
export type QuestionOwner =
  /** A task-augmented request: the task the server made on this host. */
  | { readonly kind: 'received-task'; readonly taskId: string; readonly relatedTaskId?: string }
  /** A plain request, with the server's own task it names if any (R-META-1). */
  | { readonly kind: 'plain'; readonly relatedTaskId?: string }
  /** A request of round `round` of a call's `input_required` (2026-07-28). */
  | { readonly kind: 'round'; readonly call: CallLink; readonly round: number; readonly inputKey: string }
  /** An `inputRequests` entry of a task this host sent (2026-07-28 Tasks extension). */
  | { readonly kind: 'task-input'; readonly call: CallLink; readonly taskId: string; readonly inputKey: string };

/** The budget questions are charged to: one per server (`ServerBudget`). */
export interface QuestionBudget {
  /** Holds `count` more open requests at once, or throws {@link LimitExceededError} (naming the server and setting) without holding any. */
  reserve(count: number, what: string, method?: string): () => void;
}

/** A question as it arrives: its method and params, not yet checked. */
export interface QuestionMessage {
  readonly method: string;
  readonly params?: unknown;
}

interface ParseableSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: ParamIssues };
}

/** The methods a server may ask the user with, and their (2025-11-25 and 2026-07-28) schemas. */
export const QUESTION_SCHEMAS: Readonly<Record<string, ParseableSchema>> = {
  'sampling/createMessage': CreateMessageRequestSchema,
  'elicitation/create': elicitRequestSchema,
};

/**
 * The host's one params check of a question (R-ERR-1): its request parsed, or -32602 with one
 * sentence naming the field; -32601 for a method this host does not answer.
 */
export function checkQuestion(request: QuestionMessage): { readonly method: string; readonly params: Record<string, unknown> } {
  const schema = QUESTION_SCHEMAS[request.method];
  // The method is the server's text: quoted and shortened, so the error stays one line.
  if (!schema) throw new ProtocolError(ErrorCode.MethodNotFound, `${JSON.stringify(String(request.method)).slice(0, 80)} is not supported by this host`);
  const whole = { method: request.method, params: request.params };
  const parsed = schema.safeParse(whole);
  if (!parsed.success) throw invalidParams(request.method, parsed.error, whole);
  return parsed.data as { method: string; params: Record<string, unknown> };
}

/**
 * The controller a question (or a round of them) of `call` is answered under: aborted when `signal`
 * aborts (the request was given up) or the call's questions close, linked while `store` lives. The
 * call tells its open questions itself ({@link CallLink.onClose}): no signal of the call's is made for
 * them, nor aborted when the call ends, which most calls do without a question left open (bench: rev2026
 * input_required host CPU per call).
 */
export function questionSignal(store: DisposableStore, signal: AbortSignal, call: CallLink): AbortController {
  const question = linkedAbort(store, signal);
  if (!question.signal.aborted) store.add(call.onClose((reason) => question.abort(reason)));
  return question;
}

/** Thrown for a question whose call or task no longer takes questions. */
export class OwnerClosedError extends ProtocolError {
  constructor(serverName: string, method: string) {
    super(ErrorCode.InvalidRequest, `${method.slice(0, 100)} refused: the call of "${serverName}" it was asked for has ended or was cancelled`);
    this.name = 'OwnerClosedError';
  }
}

/** What one server's door keeps: per call, the questions it has asked so far. */
export class QuestionDoor {
  private readonly _asked = new WeakMap<CallLink, number>();
  private readonly _rounds = new WeakMap<CallLink, number>();

  /**
   * The call this host sent to this server whose task is `taskId`, when it keeps one (set by the
   * requestor's tracker, requestor/taskUpdates.ts). A 2025-11-25 question naming that task as its
   * related task belongs to the call: withdrawn when it ends (connection/hostClient.ts).
   */
  sentCallOf?: (taskId: string) => CallLink | undefined;

  constructor(
    private readonly _serverName: string,
    private readonly _budget: QuestionBudget,
  ) {}

  /**
   * Opens one `input_required` round of `method` (its `inputRequests`), for `call` when the
   * request was a call this host tracks. Charged as one: refused whole (nothing shown) beyond the
   * server's budget or the call's bound; the returned function releases the round once answered.
   */
  openRound(method: string, inputRequests: Readonly<Record<string, unknown>> | undefined, call: CallLink | undefined): { readonly round: number; readonly release: () => void } {
    const count = Object.keys(inputRequests ?? {}).length;
    if (call) this._refuseIfClosed(call, method);
    // The server's budget first: a round larger than what is left fails whole, naming that limit.
    const release = count === 0 ? () => undefined : this._budget.reserve(count, `Too many questions in one input_required round (${count})`, method);
    if (!call) return { round: 1, release };
    try {
      this._count(call, count, `one input_required round of ${method}`);
    } catch (e) {
      release();
      throw e;
    }
    const round = (this._rounds.get(call) ?? 0) + 1;
    this._rounds.set(call, round);
    return { round, release };
  }

  /** The round a call is in (the one {@link openRound} opened last). */
  roundOf(call: CallLink): number {
    return this._rounds.get(call) ?? 0;
  }

  /** Admits one question of a task's `inputRequests`: checked, counted against its call, charged to the budget. */
  admitTaskInput(call: CallLink, request: QuestionMessage): { readonly params: Record<string, unknown>; readonly release: () => void } {
    this._refuseIfClosed(call, request.method);
    const { params } = checkQuestion(request);
    this._count(call, 1, `input requests of its task`);
    return { params, release: this._budget.reserve(1, 'Too many open requests', request.method) };
  }

  /** Refuses a question for a call that takes none any more. */
  refuseIfClosed(call: CallLink, method: string): void {
    this._refuseIfClosed(call, method);
  }

  private _refuseIfClosed(call: CallLink, method: string): void {
    if (call.isClosed()) throw new OwnerClosedError(this._serverName, method);
  }

  private _count(call: CallLink, count: number, what: string): void {
    const asked = (this._asked.get(call) ?? 0) + count;
    const max = call.maxQuestions();
    if (asked > max) {
      throw new LimitExceededError(`Too many questions for one call: server "${this._serverName}" asked ${asked} in ${what} and before (limit ${max}, setting ${MAX_QUESTIONS_SETTING})`);
    }
    this._asked.set(call, asked);
  }
}

