/**
 * Text that a server (or a workspace file) controls, made safe for the places VS Code renders
 * it: nothing it contains may become a link (least of all a `command:` link, which runs a
 * command with arguments on one click), HTML, or Markdown formatting.
 *
 * - {@link escapeLinkedText}: notifications and the line under a quick input (its prompt and
 *   validation message). VS Code parses `[label](https://…|command:…|file:…)` there and
 *   renders everything else as plain text.
 * - {@link escapeMarkdown}, {@link markdownCodeSpan}, {@link markdownFence}: `MarkdownString`s
 *   (tree and status bar tooltips) and the Markdown task documents.
 */

/** U+200B ZERO WIDTH SPACE: invisible, and breaks the `](` that every link of linked text needs. */
const ZWSP = '\u200b';

/**
 * For notifications and quick-input prompts/validation messages: the text shows as written,
 * but no `[label](target)` in it is a link. VS Code's linked-text parser needs `](` followed
 * by the target; a zero-width space between `]` and `(` keeps it from matching while the user
 * still sees the server's text unchanged. (HTML, autolinks and backticks are not rendered on
 * these surfaces; they stay as they are.)
 */
export function escapeLinkedText(text: string): string {
  return text.replace(/\]\(/g, `]${ZWSP}(`);
}

/**
 * ASCII punctuation that can start Markdown syntax inline: links and images (`[`, `]`), HTML
 * and autolinks (`<`, `>`), entities (`&`), code spans, emphasis, strikethrough, table cells,
 * theme icons (`$(…)`), and the backslash itself (so our escapes cannot be undone). An
 * underscore inside a word (`confirm_deploy`) cannot emphasise anything and is left alone.
 */
const INLINE_SPECIAL = /[\\`*~[\]<>&|$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g;

/** A line start that would begin a block: heading, quote, list item, rule, setext underline, fence. */
const BLOCK_START = /^(\s*)([#>+=-]|\d+[.)])/;

/**
 * Escapes text for Markdown so it renders as exactly that text: no link, image, autolink,
 * HTML, code span, emphasis, heading or list. `command:` never survives as a scheme either
 * (`command\:` renders as `command:` but is no URI to any linkifier).
 *
 * Single-line by default: line breaks become spaces (table cells, one-line tooltips). With
 * `multiline`, lines are kept as hard line breaks and each line start is escaped too.
 */
export function escapeMarkdown(text: string, options: { multiline?: boolean } = {}): string {
  const inline = (s: string) => s.replace(INLINE_SPECIAL, '\\$&').replace(/(command)(:)/gi, '$1\\$2');
  if (!options.multiline) return inline(text.replace(/\r\n|\r|\n/g, ' '));
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => inline(line).replace(BLOCK_START, (_m, indent: string, marker: string) => `${indent}${escapeMarker(marker)}`))
    .join('  \n');
}

function escapeMarker(marker: string): string {
  // "12." → "12\." ; "#" → "\#".
  return /^\d/.test(marker) ? `${marker.slice(0, -1)}\\${marker.slice(-1)}` : `\\${marker}`;
}

/**
 * A Markdown code span showing `text` verbatim. Inside a code span nothing is parsed (no
 * links, no HTML, no escapes — a backslash shows as a backslash), so the text is not escaped;
 * the fence is one backtick longer than the longest run of backticks in it. Line breaks
 * become spaces (as CommonMark does inside code spans anyway).
 */
export function markdownCodeSpan(text: string): string {
  const one = text.replace(/\r\n|\r|\n/g, ' ');
  const longest = Math.max(0, ...[...one.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  // A span that starts or ends with a backtick (or space) needs a space inside the fence;
  // CommonMark strips exactly one from each side.
  const pad = /^[`\s]|[`\s]$/.test(one) && one.trim() !== '' ? ' ' : '';
  if (one === '') return '` `';
  return `${fence}${pad}${one}${pad}${fence}`;
}

/**
 * A fenced code block showing `text` verbatim: the fence is longer than any backtick run in
 * the text, so no line of it can close the block early and the rest be read as Markdown.
 */
export function markdownFence(text: string, language = ''): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, text, fence];
}

/**
 * A Markdown link only for targets that can do no harm (http, https, file, data of the given
 * kinds); anything else (`command:`, `vscode:`, `javascript:`, unparsable) is shown as text
 * in a code span. The label is escaped; characters that could end the target early are
 * percent-encoded.
 */
export function safeMarkdownLink(label: string, target: string): string {
  let scheme: string | undefined;
  try {
    scheme = new URL(target).protocol;
  } catch {
    scheme = undefined;
  }
  if (scheme !== 'http:' && scheme !== 'https:' && scheme !== 'file:' && scheme !== 'data:') {
    return `${escapeMarkdown(label)} (${markdownCodeSpan(target)})`;
  }
  const encoded = target.replace(/[\s()<>\\`[\]"']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${escapeMarkdown(label)}](${encoded})`;
}
