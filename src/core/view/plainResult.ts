/**
 * A task's result as plain text, for a result too large to render (render.ts's
 * RESULT_RENDER_BOUND): the view of its first part, and the whole of it. Plain text shows a
 * server's text as it is — nothing in it is a link, Markdown or HTML — so nothing here is escaped.
 */
import { formatSize } from '../base/size.js';
import type { TaskOutcome } from '../base/taskOutcome.js';
import type { TaskViewItem } from './taskView.js';

/**
 * The result as text: each text block as it is (a text that is JSON pretty-printed, as the rendered
 * document shows it), any other block, structured content or an error as JSON.
 */
export function resultPlainText(outcome: TaskOutcome): string {
  if (outcome.kind === 'error') return pretty({ code: outcome.code, message: outcome.message, data: outcome.data });
  const result = outcome.result as Record<string, unknown>;
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : undefined;
  if (!content) return pretty(result);
  const parts = content.map((c) => (c.type === 'text' ? textOrJson(String(c.text ?? '')) : pretty(c)));
  if (result.structuredContent !== undefined) parts.push(pretty(result.structuredContent));
  return parts.join('\n\n');
}

/**
 * The plain-text view of a result: a few lines naming the task, then `text` — whole (`part: 'full'`)
 * or its first `headChars` characters, cut at a line end, saying how much is left out.
 */
export function renderPlainResult(item: TaskViewItem, text: string, part: 'head' | 'full', headChars: number): string {
  const lines = [
    `${item.title} — ${item.direction === 'sent' ? 'sent to' : 'received from'} ${item.serverName}`,
    `taskId ${item.taskId} · ${item.task?.status ?? item.state}`,
  ];
  if (part === 'full' || text.length <= headChars) {
    lines.push(`The whole result (${formatSize(text.length)}):`, '', text);
    return lines.join('\n');
  }
  const cut = text.lastIndexOf('\n', headChars);
  const head = text.slice(0, cut > headChars / 2 ? cut : headChars);
  lines.push(
    `The result is ${formatSize(text.length)}: too large to show rendered. Below is its first ${formatSize(head.length)}; "Open the full result" above opens all of it.`,
    '',
    head,
    '',
    `… ${formatSize(text.length - head.length)} more, left out here: "Open the full result" opens all of it.`,
  );
  return lines.join('\n');
}

function textOrJson(text: string): string {
  const trimmed = text.trim();
  if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
    try {
      return pretty(JSON.parse(trimmed));
    } catch {
      /* not JSON */
    }
  }
  return text;
}

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}
