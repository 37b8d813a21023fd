/**
 * R-NOTIFY-1: the `notifications/tasks/status` a connection sends about its server's tasks, held
 * until the end of the current event-loop turn and then sent in order.
 *
 * Why not at once: a task whose work ends while its creating request is still being answered (a
 * sampler that answers at once, a refused consent) changes status before the SDK has sent its
 * CreateTaskResult, which goes out a few promise continuations after the task is created, in the
 * same turn. Sent at once, the server would hear "completed" about a task id it did not know yet,
 * and then "working" in the CreateTaskResult: a server that applies both in arrival order ends on
 * the wrong status. Held to the end of the turn, the answer is always first. It also takes the
 * notification off the answer's critical path: the server reads its CreateTaskResult without first
 * parsing a notification (bench: receiver CreateTaskResult latency).
 */
import type { Task } from '@modelcontextprotocol/client';
import { Disposable, toDisposable } from '../../base/lifecycle.js';

export class StatusNotifications extends Disposable {
  private _queued: Task[] = [];
  private _flush: ReturnType<typeof setImmediate> | undefined;

  /** `send` is called once per queued task, in order, at the end of the turn it was queued in. Nothing is sent after dispose. */
  constructor(private readonly _send: (task: Task) => void) {
    super();
    this._register(
      toDisposable(() => {
        if (this._flush) clearImmediate(this._flush);
        this._flush = undefined;
        this._queued = [];
      }),
    );
  }

  /** Queues a notification carrying `task` (the caller's copy, taken at the change). */
  push(task: Task): void {
    this._queued.push(task);
    this._flush ??= setImmediate(() => this._drain());
  }

  private _drain(): void {
    this._flush = undefined;
    const queued = this._queued;
    this._queued = [];
    for (const task of queued) this._send(task);
  }
}
