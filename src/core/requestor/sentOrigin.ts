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
import type { SentTask } from './sentTask.js';

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

/**
 * Whether requests about `sent` may go to `connection` now. When not, the task is held: tracking
 * stops, a task still running is `paused`, and its reason says where it was sent and where the
 * definition points now. When it may, a hold of before is lifted (the caller resumes it).
 */
export function mayReach(sent: SentTask, connection: Pick<RequestorConnection, 'origin'>): boolean {
  const rec = sent.record;
  const hold = originHoldAt(rec, connection);
  if (!hold) {
    liftHold(rec);
    return true;
  }
  sent.detach();
  const text = originHoldText(hold, rec.serverName);
  if (rec.phase === 'tracking' || rec.phase === 'sending') rec.phase = 'paused';
  if (rec.originHold && rec.reason === text && sameHold(rec.originHold, hold)) return false;
  rec.originHold = hold;
  rec.reason = text;
  sent.changed();
  return false;
}

/**
 * Before each request about a task tracked live: whether its connection still reaches where it
 * was sent (a connection that restarted resolves its URL or command line anew). When not, the
 * task is held ({@link mayReach}) and the request does not go out.
 */
export function stillAtOrigin(sent: SentTask): boolean {
  const live = sent.live;
  return !!live && (sameOrigin(sent.record.sentTo, live.connection.origin) || live.connection.origin === undefined || mayReach(sent, live.connection));
}

/** The hold is over: its reason goes, if it is still the one shown. */
function liftHold(rec: SentRecord): void {
  const hold = rec.originHold;
  if (!hold) return;
  if (rec.reason === originHoldText(hold, rec.serverName)) rec.reason = undefined;
  rec.originHold = undefined;
}

function sameHold(a: OriginHold, b: OriginHold): boolean {
  return a.kind === b.kind && a.now === b.now && (a.kind !== 'origin-changed' || (b.kind === 'origin-changed' && a.sentTo === b.sentTo));
}
