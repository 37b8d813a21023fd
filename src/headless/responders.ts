/**
 * Deterministic answers to the requests a server sends the headless client:
 * - `sampling/createMessage`: a fixed model name and a text echoing the last user message;
 * - `elicitation/create` (form mode): accepted with every default applied (SEP-1034) and every
 *   required field filled with a valid value ({@link defaultAnswer} with `fillRequired`);
 *   URL mode is declined (nobody is there to open the page).
 * Plain and task-augmented requests alike: the connection turns task-augmented ones into
 * ledger tasks (R-CREATE-1) and runs these responders in the background.
 */
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { ServerLog } from '../core/connection/connection.js';
import type { HostResponders, ResponderContext } from '../core/receiver/wire/responders.js';
import { defaultAnswer, parseForm, validateAnswer } from '../core/forms/elicitationForm.js';

export const HEADLESS_MODEL = 'mcp-tasks-headless';

/** One request the server sent us, as answered. */
export interface AnsweredRequest {
  readonly method: 'sampling/createMessage' | 'elicitation/create';
  /** `task`: task-augmented, answered through a ledger task (its id in `taskId`). */
  readonly mode: 'task' | 'plain';
  readonly taskId?: string;
  /** The server's own task this request belongs to (delivered on a `tasks/result` stream, R-RESULT-4). */
  readonly relatedTaskId?: string;
  /** The sent task (tracker key) whose 2026-07-28 `inputRequests` carried it, and its key there. */
  readonly sentTask?: { readonly key: string; readonly inputKey: string };
  /** What we answered: the elicitation action, or the sampling model. */
  readonly answer: string;
  readonly content?: Record<string, unknown>;
  readonly text?: string;
}

export class HeadlessResponders implements HostResponders {
  readonly answered: AnsweredRequest[] = [];

  constructor(private readonly _log: ServerLog) {}

  async sampling(params: CreateMessageRequest['params'], ctx: ResponderContext): Promise<CreateMessageResult> {
    const text = `echo: ${lastUserText(params.messages)}`;
    this._record({ method: 'sampling/createMessage', ctx, answer: HEADLESS_MODEL, text });
    return { model: HEADLESS_MODEL, role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
  }

  async elicitation(params: ElicitRequest['params'], ctx: ResponderContext): Promise<ElicitResult> {
    if (params.mode === 'url') {
      this._record({ method: 'elicitation/create', ctx, answer: 'decline', text: `URL mode (${params.url}) declined: no user to open it` });
      return { action: 'decline' };
    }
    const form = parseForm(params.requestedSchema);
    const content = defaultAnswer(form, { fillRequired: true });
    const problems = validateAnswer(form, content);
    if (problems.length) {
      this._record({ method: 'elicitation/create', ctx, answer: 'decline', text: `no valid answer: ${problems.map((p) => p.message).join('; ')}` });
      return { action: 'decline' };
    }
    this._record({ method: 'elicitation/create', ctx, answer: 'accept', content });
    return { action: 'accept', content: content as ElicitResult['content'] };
  }

  private _record(r: { method: AnsweredRequest['method']; ctx: ResponderContext; answer: string; content?: Record<string, unknown>; text?: string }): void {
    const entry: AnsweredRequest = {
      method: r.method,
      mode: r.ctx.taskId ? 'task' : 'plain',
      ...(r.ctx.taskId ? { taskId: r.ctx.taskId } : {}),
      ...(r.ctx.relatedTaskId ? { relatedTaskId: r.ctx.relatedTaskId } : {}),
      ...(r.ctx.sentTask ? { sentTask: { key: r.ctx.sentTask.key, inputKey: r.ctx.sentTask.inputKey } } : {}),
      answer: r.answer,
      ...(r.content ? { content: r.content } : {}),
      ...(r.text ? { text: r.text } : {}),
    };
    this.answered.push(entry);
    const how = entry.mode === 'task' ? `as task ${entry.taskId}` : 'plain';
    const related = entry.relatedTaskId ? ` (for server task ${entry.relatedTaskId})` : '';
    const what = r.content ? `${r.answer} ${JSON.stringify(r.content)}` : r.text ? `${r.answer}: ${r.text}` : r.answer;
    this._log.info(`answered ${r.method} ${how}${related}: ${truncate(what, 300)}`);
  }
}

function lastUserText(messages: CreateMessageRequest['params']['messages']): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const parts = Array.isArray(m.content) ? m.content : [m.content];
    const texts = parts.filter((c): c is { type: 'text'; text: string } => c.type === 'text').map((c) => c.text);
    if (texts.length) return texts.join('\n');
  }
  return '';
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
