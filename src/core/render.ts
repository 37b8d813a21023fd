/**
 * Renders a task and its result as a readable document (Markdown), for the
 * `mcp-task://<server>/<taskId>` documents.
 */
import type { TaskViewItem } from './taskView.js';

/** The URI path of a task: `mcp-task://<serverId>/<direction>/<taskId>`. */
export function taskUriParts(item: Pick<TaskViewItem, 'serverId' | 'direction' | 'taskId'>): { authority: string; path: string } {
  return { authority: encodeURIComponent(item.serverId), path: `/${item.direction}/${encodeURIComponent(item.taskId)}` };
}

/** Markdown for a task: its fields, then the result (text as text, JSON pretty-printed, images and links as links) or the error. */
export function renderTaskDocument(item: TaskViewItem): string {
  const lines: string[] = [];
  lines.push(`# ${item.title}`, '');
  lines.push(`${item.direction === 'sent' ? 'Sent to' : 'Received from'} **${item.serverName}**`, '');
  lines.push('| Field | Value |', '|---|---|');
  const t = item.task;
  const rows: Array<[string, unknown]> = [
    ['taskId', item.taskId],
    ['status', t?.status ?? item.state],
    ['statusMessage', t?.statusMessage],
    ['createdAt', t?.createdAt],
    ['lastUpdatedAt', t?.lastUpdatedAt],
    ['ttl', t ? (t.ttl === null ? 'unlimited' : `${t.ttl} ms`) : undefined],
    ['pollInterval', t?.pollInterval !== undefined ? `${t.pollInterval} ms` : undefined],
    ['arguments', item.argsSummary],
    ['note', item.detail !== t?.statusMessage ? item.detail : undefined],
  ];
  for (const [k, v] of rows) if (v !== undefined && v !== '') lines.push(`| ${k} | ${cell(String(v))} |`);
  lines.push('');
  const o = item.outcome;
  if (!o) {
    lines.push('## Result', '', item.state === 'cancelled' ? '_Cancelled: there is no result._' : '_No result yet._', '');
  } else if (o.kind === 'error') {
    lines.push('## Error', '', `JSON-RPC error **${o.code}**: ${o.message}`, '');
    if (o.data !== undefined) lines.push('```json', JSON.stringify(o.data, null, 2), '```', '');
  } else {
    lines.push('## Result', '');
    lines.push(...renderResult(o.result as Record<string, unknown>));
  }
  if (item.audit?.length) {
    lines.push('## Audit trail', '');
    for (const a of item.audit) lines.push(`- ${new Date(a.at).toISOString()} — ${a.event}${a.detail ? `: ${a.detail}` : ''}`);
    lines.push('');
  }
  return lines.join('\n');
}

function renderResult(result: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (result.isError === true) out.push('> **The tool reported an error** (`isError: true`).', '');
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : undefined;
  // A sampling result has a single content object; an elicitation result has action/content.
  const single = !content && result.content && typeof result.content === 'object' ? [result.content as Record<string, unknown>] : undefined;
  const blocks = content ?? single;
  if (typeof result.action === 'string') {
    out.push(`Action: **${result.action}**`, '');
    if (result.content !== undefined) out.push('```json', JSON.stringify(result.content, null, 2), '```', '');
    return out;
  }
  if (typeof result.model === 'string') out.push(`Model: \`${result.model}\`${result.stopReason ? ` · stop reason: ${String(result.stopReason)}` : ''}`, '');
  for (const c of blocks ?? []) {
    switch (c.type) {
      case 'text':
        out.push(...renderText(String(c.text ?? '')), '');
        break;
      case 'image':
      case 'audio': {
        const data = String(c.data ?? '');
        const mime = String(c.mimeType ?? 'application/octet-stream');
        const size = Math.round((data.length * 3) / 4);
        // Small payloads as a data link that Markdown preview can open; large ones only described.
        out.push(data.length <= 200_000 ? `[${c.type} (${mime}, ${size} bytes)](data:${mime};base64,${data})` : `_${c.type} (${mime}, ${size} bytes) — too large to inline_`, '');
        break;
      }
      case 'resource_link':
        out.push(`[${String(c.name ?? c.uri)}](${String(c.uri)})${c.description ? ` — ${String(c.description)}` : ''}`, '');
        break;
      case 'resource': {
        const r = (c.resource ?? {}) as Record<string, unknown>;
        out.push(`Resource [${String(r.uri)}](${String(r.uri)})`, '');
        if (typeof r.text === 'string') out.push(...renderText(r.text), '');
        break;
      }
      default:
        out.push('```json', JSON.stringify(c, null, 2), '```', '');
    }
  }
  if (result.structuredContent !== undefined) out.push('### Structured content', '', '```json', JSON.stringify(result.structuredContent, null, 2), '```', '');
  if (!blocks?.length && result.structuredContent === undefined) out.push('```json', JSON.stringify(result, null, 2), '```', '');
  return out;
}

/** Text as text, but JSON pretty-printed. */
function renderText(text: string): string[] {
  const trimmed = text.trim();
  if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
    try {
      return ['```json', JSON.stringify(JSON.parse(trimmed), null, 2), '```'];
    } catch {
      /* not JSON */
    }
  }
  return [text];
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
