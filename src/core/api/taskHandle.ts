/** A handle of a task created through the API: snapshot, change/progress/removal events, result, cancel. */
import type { McpTaskHandle, McpTaskProgress, McpTaskResult, McpTaskSnapshot, McpTasksApiError } from '../../../api/mcp-tasks';
import { Emitter } from '../base/event.js';
import { type IDisposable } from '../base/lifecycle.js';
import type { SentTaskSnapshot, TaskTracker } from '../requestor/tracker.js';
import { TaskApiError } from './apiErrors.js';
import { resultOf, toApiSnapshot } from './apiMapping.js';
import type { DirectoryEntry, TaskDirectory } from './taskDirectory.js';

export class TaskHandle implements McpTaskHandle, IDisposable {
  private readonly _onDidChange = new Emitter<McpTaskSnapshot>();
  private readonly _onDidProgress = new Emitter<McpTaskProgress>();
  private readonly _onDidRemove = new Emitter<McpTasksApiError>();
  readonly onDidChange = this._onDidChange.event;
  readonly onDidProgress = this._onDidProgress.event;
  readonly onDidRemove = this._onDidRemove.event;
  private readonly _disposedEmitter = new Emitter<void>();
  private readonly _onDisposed = this._disposedEmitter.event;
  private readonly _sub: IDisposable;
  private _lastProgress?: string;
  private _result?: Promise<McpTaskResult>;
  private _disposed?: TaskApiError;

  constructor(
    private readonly _entry: DirectoryEntry,
    private readonly _tracker: TaskTracker,
    directory: TaskDirectory,
  ) {
    this._lastProgress = JSON.stringify(this._current()?.progress);
    this._sub = directory.onDidChange(({ entry, kind }) => {
      if (entry !== this._entry || this._disposed) return;
      if (kind === 'removed') {
        this._onDidRemove.fire(entry.removed!);
        return;
      }
      const s = this._current();
      if (!s) return;
      const progress = JSON.stringify(s.progress);
      if (s.progress && progress !== this._lastProgress) this._onDidProgress.fire({ ...s.progress });
      this._lastProgress = progress;
      this._onDidChange.fire(this._toApi(s));
    });
  }

  get uri(): string {
    return this._entry.uri;
  }

  snapshot(): McpTaskSnapshot {
    return this._toApi(this._require());
  }

  result(): Promise<McpTaskResult> {
    this._result ??= new Promise<McpTaskResult>((resolve, reject) => {
      const check = (): boolean => {
        if (this._disposed) return reject(this._disposed), true;
        if (this._entry.removed) return reject(this._entry.removed), true;
        const s = this._current();
        const r = s && resultOf(s);
        return r ? (resolve(r), true) : false;
      };
      if (check()) return;
      const subs: IDisposable[] = [];
      const recheck = (): void => {
        if (check()) subs.forEach((d) => d.dispose());
      };
      subs.push(this.onDidChange(recheck), this.onDidRemove(recheck), this._onDisposed(recheck));
    });
    return this._result;
  }

  async cancel(): Promise<McpTaskSnapshot> {
    const s = this._require();
    if (this._entry.hint.cancellable === false) throw new TaskApiError('not_cancellable', `Task ${this.uri} was created with hint cancellable: false.`);
    const after = await this._tracker.cancel(s.key);
    return this._toApi(this._tracker.get(this._entry.key ?? '') ?? after);
  }

  /** The API object was disposed: calls fail with `error`, a pending result() rejects. */
  dispose(error?: TaskApiError): void {
    if (this._disposed) return;
    this._disposed = error ?? new TaskApiError('disposed', 'The MCP Tasks API object was disposed.');
    this._disposedEmitter.fire();
    this._sub.dispose();
    this._onDidChange.dispose();
    this._onDidProgress.dispose();
    this._onDidRemove.dispose();
    this._disposedEmitter.dispose();
  }

  private _current(): SentTaskSnapshot | undefined {
    return this._entry.key === undefined ? undefined : this._tracker.get(this._entry.key);
  }

  private _require(): SentTaskSnapshot {
    if (this._disposed) throw this._disposed;
    if (this._entry.removed) throw this._entry.removed;
    const s = this._current();
    if (!s) throw new TaskApiError('pruned', `Task ${this.uri} is no longer kept.`);
    return s;
  }

  private _toApi(s: SentTaskSnapshot): McpTaskSnapshot {
    return toApiSnapshot(this._entry.uri, s, this._entry.priority, this._entry.hint);
  }
}
