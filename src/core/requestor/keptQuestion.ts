/**
 * The open question of a sent 2025-11-25 task, kept across a reload. While the task is
 * `input_required` its server asks on the task's `tasks/result` stream (R-RESULT-4), and a reload
 * cuts that stream while the server still waits for the answer under the request's JSON-RPC id: the
 * question (id, method, params — the server's own request, bounded by MAX_KEPT_QUESTION_CHARS) is
 * kept on the task's record from the moment it arrives until it is over. When tracking resumes in
 * the same Streamable HTTP session it is asked again through the receiver's door and responders
 * (receiver/wire/keptQuestions.ts), and the answer is sent as the JSON-RPC response to that id
 * in the same session. When it cannot be answered any more — a new session, the server stopped
 * waiting (its task left `input_required`), or the answer could not be sent — it is dropped with a
 * typed reason ({@link QuestionDropped}) that the row shows in words ({@link droppedSentence}).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { errorCodeOf, errorMessage } from '../base/errors.js';
import { MAX_KEPT_QUESTION_CHARS } from '../config/limits.js';
import type { KeptQuestion } from '../receiver/questionDoor.js';
import { receiverOf } from '../receiver/wire/receiverOf.js';
import type { SentRecord } from './sentRecord.js';
import type { SentTask } from './sentTask.js';
import type { TaskDrive } from './taskDrive.js';

/** A kept question as stored on the record. */
export type StoredQuestion = NonNullable<SentRecord['openQuestion']>;
/** Why a kept question was dropped unanswered: the server went on without the answer. */
export type QuestionDropped = NonNullable<SentRecord['questionDropped']>;

/** A kept question being asked again this session: shown (`asking`), or answered and being sent. */
export type KeptAsking = { readonly kind: 'asking'; readonly controller: AbortController } | { readonly kind: 'sending' };

const KEPT_METHODS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create']);
const MAX_KEPT_ID_CHARS = 256;

/** The stored form of `question`: its params left out when they take more than the bound (or are not an object). */
export function storedForm(question: KeptQuestion, now: number): StoredQuestion | undefined {
  if (!KEPT_METHODS.has(question.method)) return undefined;
  const { id } = question;
  if (typeof id === 'string' ? id.length > MAX_KEPT_ID_CHARS : !Number.isSafeInteger(id)) return undefined;
  const params = question.params;
  let fits = false;
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) {
    try {
      fits = JSON.stringify(params).length <= MAX_KEPT_QUESTION_CHARS;
    } catch {
      fits = false;
    }
  }
  return { id, method: question.method as StoredQuestion['method'], ...(fits ? { params: params as Record<string, unknown> } : {}), askedAt: now };
}

/**
 * A sent task's kept question, owned by its {@link SentTask} (`keeper`): kept on its record while
 * open, asked again when tracking resumes in the same session, dropped with the reason otherwise.
 * What is asked again this session is its drive's (`TaskDrive.keptAsking`): it ends with tracking.
 */
export class QuestionKeeper {
  constructor(private readonly _task: SentTask) {}

  /**
   * Keeps `question` on the record while it is open (`CallLink.asked`); the returned function
   * lets it go once it is over (answered, refused, withdrawn), unless another took its place.
   */
  keep(question: KeptQuestion): () => void {
    const sent = this._task;
    const rec = sent.record;
    const kept = storedForm(question, sent.host.now());
    if (!kept) return () => undefined;
    rec.openQuestion = kept;
    rec.questionDropped = undefined;
    sent.changed();
    return () => {
      if (rec.openQuestion !== kept) return;
      rec.openQuestion = undefined;
      sent.changed();
    };
  }

  /**
   * Tracking resumed (tracker.ts onServerRunning): the question kept from before is asked again
   * when the server is in the same session, and dropped with the reason otherwise.
   */
  askAgain(): void {
    const sent = this._task;
    const rec = sent.record;
    const live = sent.live;
    const question = rec.openQuestion;
    if (!live || !question || live.keptAsking) return;
    const connection = live.connection;
    if (connection.continuity.kind !== 'resumed') return this.drop('new-session', connection.continuity.detail);
    if (question.params === undefined) return this.drop('not-kept');
    const receiver = receiverOf(connection);
    if (!receiver) return this.drop('cannot-ask');
    const controller = new AbortController();
    const asking: KeptAsking = { kind: 'asking', controller };
    live.keptAsking = asking;
    const answer = live.requests.run((signal) => receiver.answerKept(question, sent.call, AbortSignal.any([signal, controller.signal])));
    void answer.then(
      async (response) => {
        if (sent.live !== live || live.keptAsking !== asking) return; // tracking stopped: still open on the server, asked again at the next resume
        live.keptAsking = { kind: 'sending' };
        try {
          await sendInSession(live, response);
        } catch (e) {
          if (sent.live === live) this.drop('answer-not-sent', errorMessage(e).slice(0, 200));
          return;
        }
        if (sent.live === live) live.keptAsking = undefined;
        if (rec.openQuestion === question) {
          rec.openQuestion = undefined;
          sent.changed();
        }
      },
      async (e: unknown) => {
        if (sent.live !== live || live.keptAsking !== asking) return;
        live.keptAsking = undefined;
        if (controller.signal.aborted || rec.openQuestion !== question) return; // dropped already, with its reason
        if (sent.call.isClosed()) {
          // The call ended, was cancelled or forgotten: the question went with it.
          rec.openQuestion = undefined;
          sent.changed();
          return;
        }
        // The responder failed: the server is told so, as it would have been before the reload (hostClient.ts).
        rec.openQuestion = undefined;
        sent.changed();
        await sendInSession(live, { jsonrpc: '2.0', id: question.id, error: { code: errorCodeOf(e), message: errorMessage(e).slice(0, 500) } }).catch((err: unknown) =>
          live.connection.log.debug(`could not send the error answer to ${question.method}: ${errorMessage(err)}`),
        );
      },
    );
  }

  /** The server's task left `input_required` while its kept question was shown: it went on without the answer. */
  overtaken(status: string): void {
    if (this._task.live?.keptAsking?.kind === 'asking' && status !== 'input_required') this.drop('server-went-on', `its task is now '${status}'`);
  }

  /** Drops the kept question unanswered, for `kind`; a question shown meanwhile is withdrawn. */
  drop(kind: QuestionDropped['kind'], detail?: string): void {
    const sent = this._task;
    const rec = sent.record;
    const question = rec.openQuestion;
    if (!question) return;
    const live = sent.live;
    const asking = live?.keptAsking;
    if (live) live.keptAsking = undefined;
    rec.openQuestion = undefined;
    rec.questionDropped = { kind, method: question.method, ...(detail ? { detail: detail.slice(0, 300) } : {}) };
    sent.changed();
    if (asking?.kind === 'asking') asking.controller.abort(new Error(droppedSentence(rec.serverName, rec.questionDropped)));
  }
}

/** The words the row shows for a dropped question. */
export function droppedSentence(serverName: string, dropped: QuestionDropped): string {
  const what = dropped.method === 'sampling/createMessage' ? 'its sampling request' : 'its question';
  const detail = dropped.detail ? ` (${dropped.detail})` : '';
  switch (dropped.kind) {
    case 'new-session':
      return `"${serverName}" went on without your answer to ${what}: it is in a new session${detail}, and the question belonged to the old one.`;
    case 'server-went-on':
      return `"${serverName}" went on without your answer to ${what}: it stopped waiting for it${detail}.`;
    case 'not-kept':
      return `"${serverName}" went on without your answer to ${what}: it was larger than this host keeps across a reload (${MAX_KEPT_QUESTION_CHARS / 1024} KB).`;
    case 'answer-not-sent':
      return `"${serverName}" went on without your answer to ${what}: the answer could not be sent${detail}.`;
    case 'cannot-ask':
      return `"${serverName}" went on without your answer to ${what}: this window does not answer questions from it.`;
  }
}

/** Sends `message` to the server in the session the question was asked in (the client's own transport). */
async function sendInSession(live: TaskDrive, message: JSONRPCMessage): Promise<void> {
  if (!live.current) throw new Error('tracking stopped');
  const transport = live.connection.client.transport;
  if (!transport) throw new Error('the connection is closed');
  await transport.send(message);
}
