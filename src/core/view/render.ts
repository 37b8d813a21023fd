/**
 * Renders a task and its result as a readable document (Markdown), for the
 * `mcp-task://<server>/<taskId>` documents.
 *
 * Everything in it that a server controls is made safe: titles, status messages, errors, link
 * names and targets and model names are escaped or fenced (they show as text); a result's text
 * is the server's Markdown, rendered — headings, emphasis, lists, tables, code — but rebuilt so
 * it can create no `command:` link, no HTML and no embedded image (base/serverMarkdown.ts).
 */
import { escapeMarkdown, markdownCodeSpan, markdownFence, safeMarkdownLink } from '../base/escape.js';
import { renderServerMarkdown } from '../base/serverMarkdown.js';
import { formatSize } from '../base/size.js';
import { serverStatusBeside } from './rowText.js';
import { wireLabel, type TaskViewItem } from './taskView.js';

/**
 * The URI of a task: `mcp-task://<serverId>/<direction>/<taskId>/<name>.md`, where the name
 * (what editor tabs show) is readable: the tool or request and what the document holds, e.g.
 * `confirm_deploy result.md`.
 */
export function taskUriParts(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId' | 'title'>): { authority: string; path: string } {
  return { authority: encodeURIComponent(item.serverId), path: `/${item.direction}/${encodeURIComponent(item.taskId)}/${documentName(item)}.md` };
}

/** A tab-friendly name for a task's document: `<title> result` (sent) or `<title> (received)`. */
export function documentName(item: Pick<TaskViewItem, 'direction' | 'title'>): string {
  const title = item.title.replace(/[\\/:*?"<>|#%]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 60) || 'task';
  return item.direction === 'sent' ? `${title} result` : `${title} (received)`;
}

/** The direction and task id a task URI path names (`/<direction>/<taskId>/<name>.md`, or the older `/<direction>/<taskId>.md`). */
export function parseTaskUriPath(path: string): { direction: 'sent' | 'received'; taskId: string } | undefined {
  const m = /^\/(sent|received)\/([^/]+?)(?:\/[^/]*)?\.md$/.exec(path) ?? /^\/(sent|received)\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  try {
    return { direction: m[1] as 'sent' | 'received', taskId: decodeURIComponent(m[2]!) };
  } catch {
    return undefined;
  }
}

/**
 * Past this many characters of result text a document does not render the result (Markdown of a
 * 5 MB result kept the preview blank for 10–30 s): it opens a plain-text view of its first
 * {@link RESULT_HEAD_CHARS} characters, from which the whole result opens as plain text.
 */
export const RESULT_RENDER_BOUND = 1_000_000;
/** How much of a result over the bound its plain-text view shows. */
export const RESULT_HEAD_CHARS = 256_000;

/** Markdown for a task: its fields, then the result (text as text, JSON pretty-printed, images and links as links) or the error. */
export function renderTaskDocument(item: TaskViewItem, options: { loading?: boolean; resultChars?: number } = {}): string {
  const lines = renderHeader(item);
  const o = item.outcome;
  if (options.loading && !o) {
    lines.push('## Result', '', '_Loading the result…_', '');
  } else if (o?.kind === 'result' && (options.resultChars ?? 0) > RESULT_RENDER_BOUND) {
    lines.push('## Result', '', `_The result is ${formatSize(options.resultChars!)}, too large to show rendered: Retrieve Result opens it as plain text._`, '');
  } else {
    lines.push(...renderBody(item));
  }
  lines.push(...renderAudit(item));
  return lines.join('\n');
}

/** The title, the server and the Task fields: what a document shows at once, before its result. */
function renderHeader(item: TaskViewItem): string[] {
  const lines: string[] = [];
  lines.push(`# ${escapeMarkdown(item.title)}`, '');
  lines.push(`${item.direction === 'sent' ? 'Sent to' : 'Received from'} **${escapeMarkdown(item.serverName)}**`, '');
  lines.push('| Field | Value |', '|---|---|');
  for (const [k, v] of fieldRows(item)) if (v !== undefined && v !== '') lines.push(`| ${k} | ${cell(String(v))} |`);
  lines.push('');
  return lines;
}

/** The task's fields as name/value pairs (the header's table; the plain-text view lists them too). */
function fieldRows(item: TaskViewItem): Array<[string, unknown]> {
  const t = item.task;
  // The status is the row's: a lost or expired task is not "working" because the server last said so (that is beside it).
  const serverSaid = serverStatusBeside(item);
  // A call the server made no task of has only this window's id for it: never shown as a taskId.
  return [
    ['taskId', t ? item.taskId : undefined],
    ['call', t ? undefined : localCallText(item)],
    ['local id', t ? undefined : item.taskId],
    ['status', serverSaid === undefined ? (t?.status ?? item.state) : item.state],
    ['last status from the server', serverSaid],
    ['statusMessage', t?.statusMessage],
    ['createdAt', t?.createdAt],
    ['lastUpdatedAt', t?.lastUpdatedAt],
    ['ttl', t ? (t.ttl === null ? 'unlimited' : `${t.ttl} ms`) : undefined],
    ['pollInterval', t?.pollInterval !== undefined ? `${t.pollInterval} ms` : undefined],
    ['wire', wireLabel(item.wire)],
    ['arguments', item.argsSummary],
    ['note', item.detail !== t?.statusMessage ? item.detail : undefined],
  ];
}

/** The result, or the error, or why there is none. */
function renderBody(item: TaskViewItem): string[] {
  const lines: string[] = [];
  const o = item.outcome;
  if (!o) {
    lines.push('## Result', '', item.state === 'cancelled' ? '_Cancelled: there is no result._' : '_No result yet._', '');
  } else if (o.kind === 'error') {
    lines.push('## Error', '', `JSON-RPC error **${escapeMarkdown(String(o.code))}**: ${escapeMarkdown(o.message, { multiline: true })}`, '');
    if (o.data !== undefined) lines.push(...json(o.data), '');
  } else {
    lines.push('## Result', '');
    lines.push(...renderResult(o.result as Record<string, unknown>));
  }
  return lines;
}

function renderAudit(item: TaskViewItem): string[] {
  if (!item.audit?.length) return [];
  const lines = ['## Audit trail', ''];
  for (const a of item.audit) lines.push(`- ${new Date(a.at).toISOString()} — ${escapeMarkdown(a.event)}${a.detail ? `: ${escapeMarkdown(a.detail)}` : ''}`);
  lines.push('');
  return lines;
}

/** What a row without a server task is (a sent call; received rows always have one). */
function localCallText(item: TaskViewItem): string | undefined {
  if (item.direction !== 'sent') return undefined;
  return item.mode === 'plain' ? 'a plain tools/call: the server made no task of it' : 'not a task on the server (yet)';
}

function renderResult(result: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (result.isError === true) out.push('> **The tool reported an error** (`isError: true`).', '');
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : undefined;
  // A sampling result has a single content object; an elicitation result has action/content.
  const single = !content && result.content && typeof result.content === 'object' ? [result.content as Record<string, unknown>] : undefined;
  const blocks = content ?? single;
  if (typeof result.action === 'string') {
    out.push(`Action: **${escapeMarkdown(result.action)}**`, '');
    if (result.content !== undefined) out.push(...json(result.content), '');
    return out;
  }
  if (typeof result.model === 'string') out.push(`Model: ${markdownCodeSpan(result.model)}${result.stopReason ? ` · stop reason: ${escapeMarkdown(String(result.stopReason))}` : ''}`, '');
  for (const c of blocks ?? []) {
    switch (c.type) {
      case 'text':
        out.push(...renderText(String(c.text ?? '')), '');
        break;
      case 'image':
      case 'audio': {
        const data = String(c.data ?? '');
        // Only a plain type/subtype and base64 go into the data link; anything else is not linked.
        const rawMime = String(c.mimeType ?? 'application/octet-stream');
        const mime = /^[\w.+-]+\/[\w.+-]+$/.test(rawMime) ? rawMime : 'application/octet-stream';
        const size = Math.round((data.length * 3) / 4);
        const label = `${c.type} (${escapeMarkdown(rawMime)}, ${size} bytes)`;
        // Small payloads as a data link that Markdown preview can open; large ones only described.
        out.push(data.length <= 200_000 && /^[A-Za-z0-9+/=]*$/.test(data) ? `[${label}](data:${mime};base64,${data})` : `_${label} — not inlined_`, '');
        break;
      }
      case 'resource_link':
        out.push(`${safeMarkdownLink(String(c.name ?? c.uri), String(c.uri))}${c.description ? ` — ${escapeMarkdown(String(c.description))}` : ''}`, '');
        break;
      case 'resource': {
        const r = (c.resource ?? {}) as Record<string, unknown>;
        out.push(`Resource ${safeMarkdownLink(String(r.uri), String(r.uri))}`, '');
        // Markdown (or untyped) text is rendered; any other text (a log, source code) is shown as it is.
        const mime = typeof r.mimeType === 'string' ? r.mimeType : undefined;
        if (typeof r.text === 'string') out.push(...(mime === undefined || mime === 'text/markdown' ? renderText(r.text) : markdownFence(r.text)), '');
        break;
      }
      default:
        out.push(...json(c), '');
    }
  }
  if (result.structuredContent !== undefined) out.push('### Structured content', '', ...json(result.structuredContent), '');
  if (!blocks?.length && result.structuredContent === undefined) out.push(...json(result), '');
  return out;
}

/** A server's text as its Markdown, rendered safely; a text that is JSON (whole, or over several lines in it) pretty-printed. */
function renderText(text: string): string[] {
  const trimmed = text.trim();
  if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
    try {
      return json(JSON.parse(trimmed));
    } catch {
      /* not JSON */
    }
  }
  return renderServerMarkdown(text);
}

/** A JSON value pretty-printed in a code block no string in it can close. */
function json(value: unknown): string[] {
  return markdownFence(JSON.stringify(value, null, 2) ?? 'null', 'json');
}

function cell(s: string): string {
  return escapeMarkdown(s);
}
