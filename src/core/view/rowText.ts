/**
 * The short texts a task's row shows besides its title and state (tree rows, pickers): what it
 * was called with, and how it ended. Plain text (the UI escapes it where it renders Markdown).
 */
import { REDACTED } from '../base/redact.js';
import { isTerminal } from '../base/taskState.js';
import { isFinished, type TaskViewItem } from './taskViewItem.js';

/** Longest argument summary on a row; the full arguments are in the tooltip and the document. */
const ARGS_MAX = 48;
/** Longest outcome on a row; the whole result is in the document. */
const OUTCOME_MAX = 100;

/** One argument of a call as its stored summary tells it. */
export interface SummaryEntry {
  readonly key: string;
  /** As a row shows it: a string as it is, anything else as JSON; `…` at the end when cut off. */
  readonly text: string;
  /** Whether the whole value is in the summary (not cut off when stored). */
  readonly complete: boolean;
  /** The value itself, when complete. */
  readonly value?: unknown;
}

/**
 * The arguments in a stored summary (summarize, requestor/trackerUtil.ts): a one-line JSON object,
 * or its start when it was too long (`{"message":"0123…`), read as far as it goes — so a cut
 * summary shows in the same `key: value` style as a whole one. Undefined when it is no object.
 */
export function summaryEntries(argsSummary: string): SummaryEntry[] | undefined {
  try {
    const args = JSON.parse(argsSummary) as unknown;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
    return Object.entries(args as Record<string, unknown>).map(([key, value]) => ({ key, value, complete: true, text: typeof value === 'string' ? value : JSON.stringify(value) }));
  } catch {
    return cutEntries(argsSummary);
  }
}

/** The entries of an object's JSON cut off at some point (and `…` appended). */
function cutEntries(summary: string): SummaryEntry[] | undefined {
  const src = summary.endsWith('…') ? summary.slice(0, -1) : summary;
  if (!src.startsWith('{')) return undefined;
  const out: SummaryEntry[] = [];
  let i = 1;
  const ws = () => {
    while (i < src.length && /[\s,]/.test(src[i]!)) i++;
  };
  for (;;) {
    ws();
    if (i >= src.length || src[i] !== '"') break;
    const key = readString(src, i);
    if (!key.complete) break;
    i = key.end;
    ws();
    if (src[i] !== ':') break;
    i++;
    while (i < src.length && /\s/.test(src[i]!)) i++;
    if (i >= src.length) break;
    if (src[i] === '"') {
      const v = readString(src, i);
      out.push(v.complete ? { key: key.value, value: v.value, complete: true, text: v.value } : { key: key.value, complete: false, text: `${v.value}…` });
      if (!v.complete) break;
      i = v.end;
      continue;
    }
    const end = valueEnd(src, i);
    const raw = src.slice(i, end ?? src.length);
    if (end === undefined) {
      out.push({ key: key.value, complete: false, text: `${raw}…` });
      break;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      break;
    }
    out.push({ key: key.value, value, complete: true, text: raw });
    i = end;
  }
  return out;
}

/** A JSON string at `start` (its opening quote): its value, and whether it closed before the end of `src`. */
function readString(src: string, start: number): { value: string; complete: boolean; end: number } {
  let i = start + 1;
  while (i < src.length) {
    if (src[i] === '\\') i += 2;
    else if (src[i] === '"') {
      try {
        return { value: JSON.parse(src.slice(start, i + 1)) as string, complete: true, end: i + 1 };
      } catch {
        return { value: src.slice(start + 1, i), complete: true, end: i + 1 };
      }
    } else i++;
  }
  // Cut inside: an escape cut in half is left out.
  const body = src.slice(start + 1).replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return { value: JSON.parse(`"${body}"`) as string, complete: false, end: src.length };
  } catch {
    return { value: body, complete: false, end: src.length };
  }
}

/** Where a number, literal, object or array at `start` ends; undefined when `src` ends first. */
function valueEnd(src: string, start: number): number | undefined {
  let depth = 0;
  let i = start;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"') {
      const s = readString(src, i);
      if (!s.complete) return undefined;
      i = s.end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === ',' && depth === 0) return i;
    i++;
  }
  return undefined;
}

/**
 * A call's arguments in a few words, e.g. `topic: quantum, ambiguous: true`: enough to tell
 * thirty runs of one tool apart. `argsSummary` is the stored one-line JSON (it may be cut off:
 * shown in the same style, as far as it goes); undefined when there are no arguments.
 */
export function shortArguments(argsSummary: string | undefined, max = ARGS_MAX): string | undefined {
  if (argsSummary === undefined) return undefined;
  const entries = summaryEntries(argsSummary);
  return cut(entries ? entryText(entries) : argsSummary, max);
}

function entryText(entries: readonly SummaryEntry[]): string {
  return entries.map((e) => `${e.key}: ${e.text}`).join(', ');
}

function cut(text: string, max: number): string | undefined {
  text = oneLine(text);
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The arguments a stored summary still holds whole, for "Run Again…" on a call whose arguments
 * are no longer in memory (after a reload): values cut off when stored, and any holding a
 * redacted secret, are left out for the user to type again.
 */
export function knownArguments(argsSummary: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of (argsSummary === undefined ? undefined : summaryEntries(argsSummary)) ?? []) {
    if (!e.complete || JSON.stringify(e.value)?.includes(REDACTED)) continue;
    out[e.key] = e.value;
  }
  return out;
}

/**
 * Longest part of a row's title given to the arguments that tell it apart from its siblings: as
 * long as a row's arguments, since the description no longer repeats them (a narrow sidebar cuts
 * the row from its end anyway; the tooltip has them all).
 */
const DISTINGUISHING_MAX = ARGS_MAX;

/**
 * For the calls of one tool (by id, their stored summaries), what tells each apart from the
 * others in a few words: only the arguments whose values differ among them, e.g. `duration: 5`
 * when all thirty share `steps: 10`. A row puts this before the tool's name, which a narrow
 * sidebar cuts (`trigger-long-running-operatio…`): read first, it is never the part cut off.
 * Nothing for a tool called once, nor for calls whose arguments are all the same.
 */
export function distinguishingArguments(calls: ReadonlyArray<{ readonly id: string; readonly argsSummary?: string }>, max = DISTINGUISHING_MAX): Map<string, string> {
  const out = new Map<string, string>();
  if (calls.length < 2) return out;
  const parsed = calls.map((c) => ({ id: c.id, entries: c.argsSummary === undefined ? [] : (summaryEntries(c.argsSummary) ?? []) }));
  // A key differs when its text is not the same in every call (absent counts as a value).
  const seen = new Map<string, string | null>();
  const differing = new Set<string>();
  parsed.forEach((p, n) => {
    const keys = new Set(p.entries.map((e) => e.key));
    for (const e of p.entries) {
      if (n > 0 && !seen.has(e.key)) differing.add(e.key);
      const before = seen.get(e.key);
      if (before !== undefined && before !== e.text) differing.add(e.key);
      if (!seen.has(e.key)) seen.set(e.key, e.text);
    }
    for (const k of seen.keys()) if (!keys.has(k)) differing.add(k);
  });
  if (!differing.size) return out;
  for (const p of parsed) {
    const text = cut(entryText(p.entries.filter((e) => differing.has(e.key))), max);
    if (text) out.set(p.id, text);
  }
  return out;
}

/**
 * How a finished sent call ended, for its row: the error, or the first line of its result —
 * never the last status or progress message it showed while it worked ("Generating report…"
 * on a completed task). A note of this host's (why it is cancelled, expired or lost) comes first.
 * Undefined for an unfinished or received task (their rows show their status as it is).
 */
export function outcomeLine(item: Pick<TaskViewItem, 'direction' | 'state' | 'outcome' | 'detail' | 'task'>, max = OUTCOME_MAX): string | undefined {
  if (item.direction !== 'sent') return undefined;
  // A note of this host (the tracker's reason), not the server's last statusMessage.
  const note = item.detail !== undefined && item.detail !== item.task?.statusMessage ? item.detail : undefined;
  let line: string | undefined;
  switch (item.state) {
    case 'completed':
    case 'failed':
      line = resultLine(item.outcome) ?? note ?? (item.state === 'failed' ? item.task?.statusMessage : undefined);
      break;
    case 'cancelled':
      line = note ?? (item.outcome?.kind === 'error' ? item.outcome.message : undefined);
      break;
    case 'expired':
    case 'error':
      line = note ?? resultLine(item.outcome) ?? item.task?.statusMessage;
      break;
    default:
      return undefined;
  }
  if (!line) return undefined;
  line = oneLine(line);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The first line of a result's text (Markdown heading and emphasis marks left out), or an error's message. */
function resultLine(outcome: TaskViewItem['outcome']): string | undefined {
  if (!outcome) return undefined;
  if (outcome.kind === 'error') return outcome.message;
  const content = (outcome.result as { content?: unknown }).content;
  const blocks = Array.isArray(content) ? (content as Array<{ type?: unknown; text?: unknown }>) : [];
  for (const b of blocks) {
    if (b.type !== 'text' || typeof b.text !== 'string') continue;
    const first = b.text
      .split(/\r?\n/)
      .map((l) => l.replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+)/, '').replace(/(\*\*|__|`)/g, '').trim())
      .find((l) => l && !/^[-=*_]{3,}$/.test(l));
    if (first) return first;
  }
  return undefined;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * When a finished task ended (ms), for a clock that stops there; undefined while it is not
 * finished (its clock runs). A task the server finished (completed, failed, cancelled) ended at
 * the server's last change of it — the truth even when this host saw it later (polled after a
 * reload), kept only when it lies between the start and the end recorded here (another clock may
 * be off). Every other end — lost, expired, given up, lost with a reload — is this host's verdict,
 * recorded when it was made (`endedAt`): the server's last change of a task it forgot is only the
 * last time it said "working" (lost and expired rows showed "2s" whatever they lived).
 */
export function endedAt(item: Pick<TaskViewItem, 'state' | 'task' | 'endedAt' | 'createdAt'>): number | undefined {
  if (!isFinished(item.state)) return undefined;
  const updated = item.task ? Date.parse(item.task.lastUpdatedAt) : NaN;
  const byServer = item.task !== undefined && isTerminal(item.task.status) && Number.isFinite(updated);
  if (byServer && updated >= item.createdAt && (item.endedAt === undefined || updated <= item.endedAt)) return updated;
  return item.endedAt ?? (Number.isFinite(updated) ? updated : undefined);
}

/** How long it ran (ms): to its end once finished ({@link endedAt}), else to `now`. */
export function elapsedMs(item: Pick<TaskViewItem, 'state' | 'task' | 'endedAt' | 'createdAt'>, now: number): number {
  return (endedAt(item) ?? now) - item.createdAt;
}

/**
 * The status a task's tooltip shows beside its row's state: the server's last status, when it is
 * not what the row says (a lost or expired task the server last called `working`), so the
 * tooltip's `status` is the row's state and never contradicts it. Undefined when they agree.
 */
export function serverStatusBeside(item: Pick<TaskViewItem, 'state' | 'task'>): string | undefined {
  const status = item.task?.status;
  if (status === undefined) return undefined;
  const agrees: Record<string, readonly TaskViewItem['state'][]> = {
    working: ['working', 'sending', 'running'],
    input_required: ['inputRequired', 'waitingForUser'],
    completed: ['completed'],
    failed: ['failed'],
    cancelled: ['cancelled'],
  };
  return agrees[status]?.includes(item.state) ? undefined : status;
}
