/** A handle of a task created through the API: snapshot, change/progress/removal events, result, cancel. */
import type { McpTaskHandle, McpTaskProgress, McpTaskResult, McpTaskSnapshot, McpTasksApiError } from '../../../api/mcp-tasks';
import { Emitter } from '../base/event.js';
import { Disposable, type IDisposable } from '../base/lifecycle.js';
import type { SentTaskSnapshot, TaskTracker } from '../requestor/tracker.js';
import { TaskApiError } from './apiErrors.js';
import { resultOf, toApiSnapshot } from './apiMapping.js';
import type { DirectoryChange, DirectoryEntry, TaskDirectory } from './taskDirectory.js';

export class TaskHandle extends Disposable implements McpTaskHandle {
  private readonly _onDidChange = this._register(new Emitter<McpTaskSnapshot>());
  private readonly _onDidProgress = this._register(new Emitter<McpTaskProgress>());
  private readonly _onDidRemove = this._register(new Emitter<McpTasksApiError>());
  readonly onDidChange = this._onDidChange.event;
  readonly onDidProgress = this._onDidProgress.event;
  readonly onDidRemove = this._onDidRemove.event;
  private readonly _disposedEmitter = this._register(new Emitter<void>());
  private readonly _onDisposed = this._disposedEmitter.event;
  private _lastProgress?: string;
  private _result?: Promise<McpTaskResult>;
  /** Set on dispose: what every call fails with from then on. */
  private _disposed?: TaskApiError;

  constructor(
    private readonly _entry: DirectoryEntry,
    private readonly _tracker: TaskTracker,
    directory: TaskDirectory,
  ) {
    super();
    this._lastProgress = JSON.stringify(this._current()?.progress);
    this._register(directory.onDidChange(({ entry, kind }) => this._directoryChanged(entry, kind)));
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
  override dispose(error?: TaskApiError): void {
    if (this._disposed) return;
    this._disposed = error ?? new TaskApiError('disposed', 'The MCP Tasks API object was disposed.');
    // Before the emitters go: a pending result() hears it and rejects.
    this._disposedEmitter.fire();
    super.dispose();
  }

  private _directoryChanged(entry: DirectoryEntry, kind: DirectoryChange['kind']): void {
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
