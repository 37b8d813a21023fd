/**
 * Host-side sampling logic that does not need VS Code: choosing a model from the server's
 * `modelPreferences`, previews for the consent prompt, and the echo used headless.
 */
import type { CreateMessageRequest } from '@modelcontextprotocol/client';
import { escapeMarkdown } from '../base/escape.js';
import { formatSize } from '../base/size.js';
import { renderServerMarkdown } from '../base/serverMarkdown.js';

export type SamplingParams = CreateMessageRequest['params'];

/** What the host knows of a model (a subset of `vscode.LanguageModelChat`). */
export interface ModelInfo {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly vendor: string;
  readonly maxInputTokens?: number;
}

/** JSON-RPC code for "the user rejected the request" (MCP's sampling examples use -1). */
export const USER_REJECTED = -1;

/**
 * Picks a model: the one pinned for the server (id, family or name), else the first hint
 * that names a model (substring of id, family or name, case-insensitive), else by the
 * priorities (a larger context for intelligence, a smaller one for speed or cost), else the
 * first (the user's default).
 */
export function chooseModel<M extends ModelInfo>(models: readonly M[], prefs: SamplingParams['modelPreferences'], pinned?: string): M | undefined {
  if (models.length === 0) return undefined;
  const matches = (m: ModelInfo, q: string) => {
    const s = q.toLowerCase();
    return m.id.toLowerCase().includes(s) || m.family.toLowerCase().includes(s) || m.name.toLowerCase().includes(s);
  };
  if (pinned) {
    const exact = models.find((m) => m.id === pinned) ?? models.find((m) => matches(m, pinned));
    if (exact) return exact;
  }
  for (const hint of prefs?.hints ?? []) {
    if (!hint.name) continue;
    const m = models.find((x) => matches(x, hint.name!));
    if (m) return m;
  }
  const intelligence = prefs?.intelligencePriority ?? 0;
  const cheapness = Math.max(prefs?.speedPriority ?? 0, prefs?.costPriority ?? 0);
  if (intelligence !== cheapness && models.some((m) => m.maxInputTokens)) {
    const sorted = [...models].sort((a, b) => (b.maxInputTokens ?? 0) - (a.maxInputTokens ?? 0));
    return intelligence > cheapness ? sorted[0] : sorted[sorted.length - 1];
  }
  return models[0];
}

/** The text of a content block (or blocks), for previews. */
export function contentText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((c) => {
      const b = c as { type?: string; text?: string; mimeType?: string };
      if (b?.type === 'text') return b.text ?? '';
      if (b?.type === 'image' || b?.type === 'audio') return `[${b.type} ${b.mimeType ?? ''}]`;
      return b?.type ? `[${b.type}]` : '';
    })
    .join(' ');
}

/** The last user message's text. */
export function lastUserText(params: Pick<SamplingParams, 'messages'>): string {
  for (let i = params.messages.length - 1; i >= 0; i--) {
    const m = params.messages[i]!;
    if (m.role === 'user') return contentText(m.content);
  }
  return '';
}

/**
 * A one-line summary of a sampling request for the consent prompt. The user's request comes
 * first: the quick pick cuts the line at its width, and a long system prompt in front hid it.
 */
export function samplingSummary(params: SamplingParams, max = 160): string {
  const sys = params.systemPrompt ? ` · system: "${clip(params.systemPrompt, 60)}"` : '';
  const last = clip(lastUserText(params), max);
  return `last: "${last}" · ${params.messages.length} message${params.messages.length === 1 ? '' : 's'} · maxTokens ${params.maxTokens}${sys}`;
}

/**
 * How much of a sampling request's text (system prompt and messages) its document renders. A
 * server can send up to 10 MB in one request; rendered whole, the preview stayed blank for many
 * seconds (as a 5 MB result's did, render.ts RESULT_RENDER_BOUND). Past this the document says how
 * much is left out; the model still receives the whole request.
 */
export const REQUEST_RENDER_BOUND = 1_000_000;

/** The full request as Markdown, for the "show full request" document (its text bounded by `bound`). */
export function samplingPreviewMarkdown(serverName: string, params: SamplingParams, bound = REQUEST_RENDER_BOUND): string {
  // Everything here comes from the server: escaped, so it shows as text and links nowhere.
  const esc = (s: unknown) => escapeMarkdown(String(s));
  const lines = [`# Sampling request from "${esc(serverName)}"`, '', `- maxTokens: ${esc(params.maxTokens)}`];
  if (params.temperature !== undefined) lines.push(`- temperature: ${esc(params.temperature)}`);
  if (params.stopSequences?.length) lines.push(`- stopSequences: ${params.stopSequences.map((s) => esc(JSON.stringify(s))).join(', ')}`);
  const hints = params.modelPreferences?.hints?.map((h) => h.name).filter(Boolean);
  if (hints?.length) lines.push(`- model hints: ${hints.map(esc).join(', ')}`);
  if (params.includeContext) lines.push(`- includeContext: ${esc(params.includeContext)}`);
  lines.push('');
  // The prompt and the messages are the server's Markdown: rendered, made safe (no links but to web
  // pages, no HTML, no images), and only up to `bound` characters of it in all.
  let left = bound;
  let leftOut = 0;
  let messagesLeftOut = 0;
  const take = (text: string): string => {
    if (text.length <= left) {
      left -= text.length;
      return text;
    }
    const cut = text.lastIndexOf('\n', left);
    const head = text.slice(0, cut > left / 2 ? cut : left);
    leftOut += text.length - head.length;
    left = 0;
    return head;
  };
  if (params.systemPrompt) lines.push('## System prompt', '', ...renderServerMarkdown(take(params.systemPrompt), { headingShift: 3 }), '');
  lines.push('## Messages', '');
  for (const m of params.messages) {
    const text = contentText(m.content);
    if (left === 0) {
      messagesLeftOut++;
      leftOut += text.length;
      continue;
    }
    lines.push(`### ${esc(m.role)}`, '', ...renderServerMarkdown(take(text), { headingShift: 3 }), '');
  }
  if (leftOut > 0) {
    const messages = messagesLeftOut > 0 ? ` and ${messagesLeftOut} more message${messagesLeftOut === 1 ? '' : 's'}` : '';
    lines.push('---', '', `_This request is too large to show whole: ${formatSize(leftOut)} of its text${messages} are left out here (it shows the first ${formatSize(bound)}). The model receives all of it._`, '');
  }
  return lines.join('\n');
}

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
