/**
 * The short texts a task's row shows besides its title and state (tree rows, pickers): what it
 * was called with, and how it ended. Plain text (the UI escapes it where it renders Markdown).
 */
import type { TaskViewItem } from './taskView.js';

/** Longest argument summary on a row; the full arguments are in the tooltip and the document. */
const ARGS_MAX = 48;
/** Longest outcome on a row; the whole result is in the document. */
const OUTCOME_MAX = 100;

/**
 * A call's arguments in a few words, e.g. `topic: quantum, ambiguous: true`: enough to tell
 * thirty runs of one tool apart. `argsSummary` is the stored one-line JSON (it may be cut off);
 * undefined when there are no arguments.
 */
export function shortArguments(argsSummary: string | undefined, max = ARGS_MAX): string | undefined {
  if (argsSummary === undefined) return undefined;
  let text: string;
  try {
    const args = JSON.parse(argsSummary) as unknown;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) text = JSON.stringify(args);
    else text = Object.entries(args as Record<string, unknown>).map(([k, v]) => `${k}: ${typeof v === 'string' ? oneLine(v) : JSON.stringify(v)}`).join(', ');
  } catch {
    // Cut off when stored (a long call): its start still tells it apart.
    text = argsSummary.replace(/^\{|\}$/g, '');
  }
  text = oneLine(text);
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
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
