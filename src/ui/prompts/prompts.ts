import * as vscode from 'vscode';
import { Emitter } from '../../core/base/event.js';
import { Commands } from '../commands/commandIds.js';
import { showInfo, showLiveNotice, type LiveNotice } from '../adapters/notify.js';

/**
 * When a request a server sends (sampling consent, an elicitation form) opens by itself — one
 * rule for every request, task-augmented or plain (e.g. sent on a `tasks/result` stream while a
 * tool task is `input_required`), set by `mcpTasks.prompts.open`:
 * - `notify` (default): it waits: a notification (withdrawn when the request is answered or goes
 *   away), the view's badge and the status bar show it; "Respond" (the tree row, the status bar,
 *   or "MCP Tasks: Respond…") opens it. Nothing takes the keyboard focus while you type elsewhere.
 * - `immediately`: it opens as soon as no other prompt is on screen (one at a time, in order).
 * A prompt that continues what the user is doing (the reply box after "Write the reply myself")
 * opens at once either way.
 */
export type PromptOpenRule = 'immediately' | 'notify';

/** What a prompt's `run` returns when the user hid it without answering (see {@link PromptQueue}). */
export const PROMPT_HIDDEN: unique symbol = Symbol('prompt hidden');
export type PromptHidden = typeof PROMPT_HIDDEN;

let promptSeq = 0;

/**
 * The id of a prompt for a plain request (one with no task id of its own): unique in this window.
 * Two requests in the same millisecond once got the same (`Date.now()`) id, and the second
 * replaced the first, which could then never be answered.
 */
export function plainPromptId(kind: string, serverId: string): string {
  return `${kind}:${serverId}:${++promptSeq}`;
}

/** A prompt that needs VS Code's single quick-input widget (or, `exclusive: false`, an editor). */
export interface PromptRequest<T> {
  /** Stable id; for task prompts the task view id (`received:<server>/<taskId>`). */
  readonly id: string;
  readonly serverName: string;
  /** One line, e.g. "asks you to fill a form: Deployment details". */
  readonly title: string;
  /** Opens at once whatever the rule: it continues what the user just did. */
  readonly immediate?: boolean;
  /**
   * False for a prompt in an editor (the reply editor): it does not take the quick-input widget,
   * so other prompts are not held back while it is open.
   */
  readonly exclusive?: boolean;
  /**
   * Shows the prompt; must close it when `token` is cancelled. Resolves {@link PROMPT_HIDDEN}
   * when the prompt left the screen unanswered (Escape, another quick input took its place, its
   * editor closed): the request waits again and `run` is called again on Respond — keep what
   * was typed in the closure to show it again.
   */
  run(token: vscode.CancellationToken): Promise<T | PromptHidden>;
  /** Brings an open non-exclusive prompt to the front (Respond while its editor is open). */
  reveal?(): void;
  /** The answer for "Cancel" on a waiting prompt's notification (and Cancel on its row); without it the button is not offered. */
  cancelAnswer?(): T;
  /** The notification while it waits, instead of `MCP server "<serverName>" <title>` (a prompt that is no server's request: a Run Tool draft). */
  readonly waitingMessage?: string;
  /** Waits for Respond from the start whatever the rule: a form the user just closed. */
  readonly parked?: boolean;
}

interface Entry {
  readonly request: PromptRequest<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  readonly cts: vscode.CancellationTokenSource;
  settled: boolean;
  /** The notification while it waits for Respond; withdrawn when it stops waiting. */
  notice?: LiveNotice;
}

/** The prompt was cancelled (task cancelled, connection closed). */
export class PromptCancelledError extends Error {
  constructor(message = 'The prompt was cancelled') {
    super(message);
    this.name = 'PromptCancelledError';
  }
}

/**
 * Serialises prompts so several incoming elicitations and consents never fight over the
 * quick-input widget: one at a time, in arrival order, opened by themselves or on Respond (see
 * {@link PromptOpenRule}). A prompt hidden without an answer waits again, with what was typed.
 */
export class PromptQueue implements vscode.Disposable {
  private readonly _queue: Entry[] = [];
  private readonly _waiting = new Map<string, Entry>();
  /** Open non-exclusive prompts (editors). */
  private readonly _side = new Map<string, Entry>();
  private _running?: Entry;
  private readonly _onDidChange = new Emitter<void>();
  /** Fires when the set of waiting or queued prompts, or the prompt on screen, changes. */
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly _rule: () => PromptOpenRule = () => 'notify') {}

  /** Ids of prompts waiting for the user to open them. */
  get waitingIds(): string[] {
    return [...this._waiting.keys()];
  }

  /** Ids of prompts due to be shown after the one on screen, in order. */
  get queuedIds(): string[] {
    return this._queue.map((e) => e.request.id);
  }

  /** The prompt on screen, if any. */
  get activeId(): string | undefined {
    return this._running?.request.id;
  }

  /** Ids of open prompts in editors (the reply editor). */
  get openInEditorIds(): string[] {
    return [...this._side.keys()];
  }

  /** Who asks and what, for a prompt waiting or open (the Respond… list). */
  describe(id: string): { serverName: string; title: string } | undefined {
    const e = this._waiting.get(id) ?? this._side.get(id) ?? (this._running?.request.id === id ? this._running : this._queue.find((q) => q.request.id === id));
    return e && { serverName: e.request.serverName, title: e.request.title };
  }

  /**
   * Queues a prompt; resolves with its answer. `signal` withdraws it. A prompt whose id is already
   * in use (waiting, queued, open) gets a fresh one: it never takes the place of the other.
   */
  request<T>(request: PromptRequest<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(new PromptCancelledError());
        return;
      }
      if (this._inUse(request.id)) request = { ...request, id: this._freshId(request.id) };
      const entry: Entry = { request: request as PromptRequest<unknown>, resolve: resolve as (v: unknown) => void, reject, cts: new vscode.CancellationTokenSource(), settled: false };
      signal.addEventListener('abort', () => this._withdraw(entry, signal.reason), { once: true });
      if (!request.parked && (request.immediate || this._rule() === 'immediately')) {
        this._start(entry);
      } else {
        this._park(entry, request.waitingMessage ?? vscode.l10n.t('MCP server "{0}" {1}', request.serverName, request.title));
      }
    });
  }

  /** Opens a waiting prompt (the user chose Respond). Returns false if it is not waiting or open. */
  respond(id: string): boolean {
    const side = this._side.get(id);
    if (side) {
      side.request.reveal?.();
      return true;
    }
    const entry = this._waiting.get(id);
    if (!entry) return this._running?.request.id === id || this._queue.some((e) => e.request.id === id);
    this._unpark(entry);
    if (entry.request.exclusive === false) {
      this._runSide(entry);
      return true;
    }
    this._queue.unshift(entry);
    this._onDidChange.fire();
    this._pump();
    return true;
  }

  /** Answers a waiting prompt with its cancel answer ("Cancel Request"). Returns false if it is not waiting. */
  cancelWaiting(id: string): boolean {
    const entry = this._waiting.get(id);
    if (!entry?.request.cancelAnswer) return false;
    this._unpark(entry);
    this._settle(entry, () => entry.resolve(entry.request.cancelAnswer!()));
    this._onDidChange.fire();
    return true;
  }

  private _disposing = false;

  dispose(): void {
    this._disposing = true;
    for (const e of [...this._queue, ...this._waiting.values(), ...this._side.values()]) this._withdraw(e);
    if (this._running) this._withdraw(this._running);
    this._onDidChange.dispose();
  }

  /**
   * Whether a prompt that is still unanswered holds `id`. An answered one does not, though the queue
   * clears it a moment later: a task's next prompt (the reply editor after its consent pick) is asked
   * for at once, and keeps the task's id so that Respond on the task's row finds it.
   */
  private _inUse(id: string): boolean {
    const holds = (e: Entry | undefined) => e !== undefined && !e.settled && e.request.id === id;
    return holds(this._waiting.get(id)) || holds(this._side.get(id)) || holds(this._running) || this._queue.some(holds);
  }

  private _freshId(id: string): string {
    let n = 2;
    while (this._inUse(`${id}~${n}`)) n++;
    return `${id}~${n}`;
  }

  private _start(entry: Entry): void {
    if (entry.request.exclusive === false) {
      this._runSide(entry);
      return;
    }
    this._queue.push(entry);
    this._pump();
    if (this._queue.includes(entry)) this._onDidChange.fire();
  }

  /**
   * Waits for Respond: the view's badge, the status bar, its tree row, and a notification that is
   * withdrawn as soon as it stops waiting (opened, answered, or gone with its request): a toast
   * could not be withdrawn, and kept offering to answer requests that had ended. It ends with a
   * "Respond" link that opens it; its Cancel button (where the prompt has a cancel answer) is
   * "Cancel Request".
   */
  private _park(entry: Entry, message: string): void {
    const { id } = entry.request;
    this._waiting.set(id, entry);
    this._onDidChange.fire();
    entry.notice?.dispose();
    // "Respond" (a link: a progress notification's only button is Cancel) opens it from here, so the
    // one button beside it is not the destructive one alone.
    const link = { label: vscode.l10n.t('Respond'), command: Commands.respond, args: [id] };
    entry.notice = showLiveNotice(
      `${message} — ${vscode.l10n.t('open it from the status bar, its row in the MCP Tasks view, or here:')}`,
      entry.request.cancelAnswer ? { onCancel: () => this.cancelWaiting(id), cancelSays: vscode.l10n.t('(Cancel answers "cancel")'), link } : { link },
    );
  }

  /** It no longer waits for Respond: out of the waiting list, its notification withdrawn. */
  private _unpark(entry: Entry): void {
    if (this._waiting.get(entry.request.id) === entry) this._waiting.delete(entry.request.id);
    entry.notice?.dispose();
    entry.notice = undefined;
  }

  private _withdraw(entry: Entry, reason?: unknown): void {
    const idx = this._queue.indexOf(entry);
    if (idx >= 0) this._queue.splice(idx, 1);
    let changed = idx >= 0;
    if (this._waiting.get(entry.request.id) === entry) changed = true;
    this._unpark(entry);
    // On screen (a form, the reply editor): it closes by itself, so say why.
    const shown = this._running === entry || this._side.get(entry.request.id) === entry;
    if (this._side.get(entry.request.id) === entry) {
      this._side.delete(entry.request.id);
      changed = true;
    }
    if (changed) this._onDidChange.fire();
    entry.cts.cancel();
    if (shown && !entry.settled && reason !== undefined && !this._disposing) {
      void showInfo(vscode.l10n.t('MCP Tasks: the request from "{0}" was withdrawn: {1}', entry.request.serverName, withdrawnReason(reason)));
    }
    this._settle(entry, () => entry.reject(new PromptCancelledError()));
  }

  private _settle(entry: Entry, how: () => void): void {
    if (entry.settled) return;
    entry.settled = true;
    how();
  }

  /** Runs `entry` once; a hidden prompt waits again (not when it was withdrawn meanwhile). */
  private async _runOnce(entry: Entry): Promise<void> {
    try {
      const r = await entry.request.run(entry.cts.token);
      if (r !== PROMPT_HIDDEN) this._settle(entry, () => entry.resolve(r));
      else if (!entry.settled && !entry.cts.token.isCancellationRequested) {
        this._park(entry, entry.request.waitingMessage ?? vscode.l10n.t('MCP server "{0}" {1} (closed unanswered: what you typed is kept)', entry.request.serverName, entry.request.title));
      }
    } catch (e) {
      this._settle(entry, () => entry.reject(e));
    }
    if (entry.settled) entry.cts.dispose();
  }

  private _runSide(entry: Entry): void {
    this._side.set(entry.request.id, entry);
    this._onDidChange.fire();
    void this._runOnce(entry).finally(() => {
      if (this._side.get(entry.request.id) === entry) this._side.delete(entry.request.id);
      this._onDidChange.fire();
    });
  }

  private _pump(): void {
    if (this._running) return;
    const next = this._queue.shift();
    if (!next) return;
    this._running = next;
    this._onDidChange.fire();
    void this._runOnce(next).finally(() => {
      this._running = undefined;
      if (this._queue.length === 0) this._onDidChange.fire();
      this._pump();
    });
  }
}

/** Why a prompt was withdrawn, from its signal's reason: the text of an Error or a string, else a general word. */
function withdrawnReason(reason: unknown): string {
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  if (typeof reason === 'string' && reason) return reason;
  return vscode.l10n.t('it was cancelled or its server stopped');
}
