/**
 * A reason a sent task shows for a trouble that passes by itself — a cancel waiting for the task's
 * id or its server, a `tasks/result` tried again, an input request that could not be answered.
 * The record keeps its kind beside the text, so the step that ends the trouble clears the reason
 * it set, and only while it is still the one shown (a later reason of another kind stays).
 */
import type { SentRecord } from './sentRecord.js';

export type PassingTrouble = 'cancel-pending' | 'result-retry' | 'input-failed';

/** Shows `text` as the task's reason, for a trouble of `kind`. */
export function setPassingReason(rec: SentRecord, kind: PassingTrouble, text: string): void {
  rec.reason = text;
  rec.passingReason = { kind, text };
}

/** The trouble of `kind` is over: its reason goes, if it is still the one shown. */
export function clearPassingReason(rec: SentRecord, kind: PassingTrouble): void {
  const passing = rec.passingReason;
  if (passing?.kind !== kind) return;
  if (rec.reason === passing.text) rec.reason = undefined;
  rec.passingReason = undefined;
}
