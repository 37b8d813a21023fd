import * as vscode from 'vscode';
import { Emitter } from '../core/base/events.js';
import { showInfo } from './notify.js';

/** A prompt that needs VS Code's single quick-input widget. */
export interface PromptRequest<T> {
  /** Stable id; for task prompts the task view id (`received:<server>/<taskId>`). */
  readonly id: string;
  readonly serverName: string;
  /** One line, e.g. "asks you to fill a form: Deployment details". */
  readonly title: string;
  /**
   * Task-augmented requests wait in the background (a notification and the tree's Respond
   * action) instead of stealing focus; plain requests are shown as soon as it is their turn.
   */
  readonly background: boolean;
  /** Shows the prompt; must close it when `token` is cancelled. */
  run(token: vscode.CancellationToken): Promise<T>;
}

interface Entry {
  readonly request: PromptRequest<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  readonly cts: vscode.CancellationTokenSource;
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
 * quick-input widget: one at a time, foreground ones in arrival order, background ones when
 * the user asks for them.
 */
export class PromptQueue implements vscode.Disposable {
  private readonly _queue: Entry[] = [];
  private readonly _waiting = new Map<string, Entry>();
  private _running?: Entry;
  private readonly _onDidChange = new Emitter<void>();
  /** Fires when the set of waiting or queued prompts, or the prompt on screen, changes. */
  readonly onDidChange = this._onDidChange.event;

  /** Ids of background prompts waiting for the user. */
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

  /** Queues a prompt; resolves with its answer. `signal` withdraws it. */
  request<T>(request: PromptRequest<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(new PromptCancelledError());
        return;
      }
      const entry: Entry = { request: request as PromptRequest<unknown>, resolve: resolve as (v: unknown) => void, reject, cts: new vscode.CancellationTokenSource() };
      signal.addEventListener('abort', () => this._withdraw(entry), { once: true });
      if (request.background) {
        this._waiting.set(request.id, entry);
        this._onDidChange.fire();
        const respond = 'Respond';
        void showInfo(`MCP server "${request.serverName}" ${request.title}`, respond).then((choice) => {
          if (choice === respond) this.respond(request.id);
        });
      } else {
        this._queue.push(entry);
        this._pump();
        if (this._queue.includes(entry)) this._onDidChange.fire();
      }
    });
  }

  /** Brings a waiting background prompt forward (the user clicked Respond). Returns false if unknown. */
  respond(id: string): boolean {
    const entry = this._waiting.get(id);
    if (!entry) return this._running?.request.id === id || this._queue.some((e) => e.request.id === id);
    this._waiting.delete(id);
    this._queue.unshift(entry);
    this._onDidChange.fire();
    this._pump();
    return true;
  }

  dispose(): void {
    for (const e of [...this._queue, ...this._waiting.values()]) this._withdraw(e);
    if (this._running) this._withdraw(this._running);
    this._onDidChange.dispose();
  }

  private _withdraw(entry: Entry): void {
    const idx = this._queue.indexOf(entry);
    if (idx >= 0) this._queue.splice(idx, 1);
    if (this._waiting.get(entry.request.id) === entry) {
      this._waiting.delete(entry.request.id);
      this._onDidChange.fire();
    } else if (idx >= 0) {
      this._onDidChange.fire();
    }
    entry.cts.cancel();
    entry.reject(new PromptCancelledError());
  }

  private _pump(): void {
    if (this._running) return;
    const next = this._queue.shift();
    if (!next) return;
    this._running = next;
    this._onDidChange.fire();
    void (async () => {
      try {
        next.resolve(await next.request.run(next.cts.token));
      } catch (e) {
        next.reject(e);
      } finally {
        next.cts.dispose();
        this._running = undefined;
        if (this._queue.length === 0) this._onDidChange.fire();
        this._pump();
      }
    })();
  }
}
