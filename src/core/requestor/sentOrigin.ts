/**
 * A sent task belongs to the server it was sent to, not to the name of its definition: it records
 * that server's origin when it goes out (connection/serverOrigin.ts: the resolved URL, or the exact
 * command line), and every request about it — `tasks/get`, `tasks/result`, `tasks/cancel`,
 * `tasks/update`, a resume after a reload or a restart — goes out only to a connection that reaches
 * that very origin. When the definition of the same name now reaches another one (its URL edited,
 * a `${env:…}` or `${input:…}` that resolved elsewhere), the task is held with a typed reason
 * ({@link OriginHold}) and nothing is asked of the new server, which could otherwise answer for the
 * old task id with a result of its choosing; once the definition reaches the first origin again,
 * the task resumes there.
 *
 * A task stored before origins were kept has none: nothing shows where it went, so it is held as
 * `origin-unknown` rather than trusted to whatever server the definition reaches now. A task whose
 * result is already here is not affected (nothing more is asked); one still running, or whose
 * result was not kept, can be dismissed and its tool run again.
 */
import type { RequestorConnection } from '../connection/connection.js';
import { sameOrigin } from '../connection/serverOrigin.js';
import type { SentRecord } from './sentRecord.js';

/** Why a task is held back from the server its definition reaches now. */
export type OriginHold =
  /** Sent to `sentTo`; the definition now reaches `now` (labels: connection/serverOrigin.ts). */
  | { readonly kind: 'origin-changed'; readonly sentTo: string; readonly now: string }
  /** Stored before this host recorded where tasks go: it may have gone anywhere. */
  | { readonly kind: 'origin-unknown'; readonly now: string };

/** The sentence a held task shows. */
export function originHoldText(hold: OriginHold, serverName: string): string {
  switch (hold.kind) {
    case 'origin-changed':
      return hold.sentTo === hold.now
        ? `Sent to ${hold.sentTo}; "${serverName}" now reaches a different server there (its URL or command line changed in a part not shown). It is not asked about this task; it resumes once "${serverName}" reaches the server it was sent to.`
        : `Sent to ${hold.sentTo}; "${serverName}" now points at ${hold.now}. That server is not asked about this task; it resumes once "${serverName}" points at ${hold.sentTo} again.`;
    case 'origin-unknown':
      return `Sent before this version recorded which server a task went to, so it is not asked of "${serverName}" at ${hold.now}, which may be another server. Dismiss it and run the tool again.`;
  }
}

/** What keeps `rec` from `connection`, or undefined when the connection reaches where it was sent (or reaches nothing now: then no request can go out). */
export function originHoldAt(rec: Pick<SentRecord, 'sentTo'>, connection: Pick<RequestorConnection, 'origin'>): OriginHold | undefined {
  const now = connection.origin;
  if (!now) return undefined;
  if (!rec.sentTo) return { kind: 'origin-unknown', now: now.label };
  return sameOrigin(rec.sentTo, now) ? undefined : { kind: 'origin-changed', sentTo: rec.sentTo.label, now: now.label };
}

/** Whether two holds say the same (a hold said again is no change). */
export function sameHold(a: OriginHold, b: OriginHold): boolean {
  return a.kind === b.kind && a.now === b.now && (a.kind !== 'origin-changed' || (b.kind === 'origin-changed' && a.sentTo === b.sentTo));
}
