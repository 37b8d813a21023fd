/**
 * Where a sent task stands locally, and the moves between those places: the one table
 * {@link SentTask} checks before every change of its phase (sentTask.ts `moveTo`). A finished task
 * never starts again, a task the server named never goes back to waiting in the queue or to being
 * sent: such a move is a defect here, and it throws {@link PhaseTransitionError} where it happens,
 * rather than showing a row that lies.
 */
import { assertNever } from '../base/taskState.js';
import type { SentTaskPhase } from './trackerTypes.js';

export const FINISHED_PHASES: ReadonlySet<SentTaskPhase> = new Set(['done', 'expired', 'error']);

/** Whether a sent task may move from `from` to `to` (staying is allowed: a reason or a connection may change). */
export function canMovePhase(from: SentTaskPhase, to: SentTaskPhase): boolean {
  if (from === to) return true;
  switch (from) {
    case 'queued':
      // Sent once a slot frees; cancelled or failed before it reached the server.
      return to === 'sending' || to === 'done' || to === 'error';
    case 'sending':
      // Named by the server (tracking), answered plainly or failed (finished), or its server went away.
      return to === 'tracking' || to === 'paused' || FINISHED_PHASES.has(to);
    case 'tracking':
    case 'paused':
    case 'orphaned':
      // A task the server named waits, resumes or ends; it never goes back to the queue nor out again.
      return to === 'tracking' || to === 'paused' || to === 'orphaned' || FINISHED_PHASES.has(to);
    case 'done':
    case 'expired':
    case 'error':
      return false;
    default:
      return assertNever(from);
  }
}

/** A sent task was asked to move where it cannot go from where it stands (a defect of this host, never of a server). */
export class PhaseTransitionError extends Error {
  constructor(
    readonly key: string,
    readonly from: SentTaskPhase,
    readonly to: SentTaskPhase,
  ) {
    super(`Sent task ${key} cannot move from '${from}' to '${to}'${FINISHED_PHASES.has(from) ? `: it already ended (${from})` : ''}`);
    this.name = 'PhaseTransitionError';
  }
}

/** Throws {@link PhaseTransitionError} unless `from` → `to` is allowed. */
export function assertPhaseMove(key: string, from: SentTaskPhase, to: SentTaskPhase): void {
  if (!canMovePhase(from, to)) throw new PhaseTransitionError(key, from, to);
}
