/**
 * Why sent tasks left the tracker (and with it the Tasks view and the stored state): one event
 * for every way a task is forgotten, naming the tasks, so a holder of a task (an API handle, an
 * open document) can say that it was dismissed or pruned rather than just "not found".
 */

export type SentTaskRemovalReason =
  /** The user dismissed it (Dismiss, or `TaskTracker.remove`). */
  | 'dismissed'
  /** Clear Finished. */
  | 'cleared'
  /** More tasks than `mcpTasks.requestor.maxStoredTasks`: the oldest finished (then orphaned) ones go. */
  | 'prunedByCount'
  /** Finished longer ago than `mcpTasks.requestor.maxFinishedAgeHours`. */
  | 'prunedByAge'
  /** The same task arrived again (e.g. through `tasks/list`) and replaced this record. */
  | 'replaced';

/** Tasks forgotten together, for one reason. */
export interface SentTaskRemoval {
  /** Keys (`<serverId>/<taskId>`) as they were. */
  readonly keys: readonly string[];
  readonly reason: SentTaskRemovalReason;
}
