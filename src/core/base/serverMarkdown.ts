/**
 * A server's Markdown (a tool result's text, a sampling prompt) made safe to render in our task
 * and request documents: its formatting shows as formatting — headings, emphasis, lists, quotes,
 * tables, code — but nothing in it can become HTML, a link to anything but a web page (no
 * `command:`, `vscode:`, `file:` or `javascript:` link), an embedded image (a remote image would
 * tell the server who reads it, and when) or a reference definition. JSON a text carries over
 * several lines is shown pretty-printed in a code block.
 *
 * It is a rewrite, not a filter: the output is Markdown in which every link was built here, every
 * `<` is escaped, code spans and fenced blocks are balanced (an unclosed fence cannot swallow the
 * rest of the document), and the server's headings sit below ours (`#` becomes `###`).
 */
import { escapeMarkdown, markdownCodeSpan, markdownFence } from './escape.js';

export interface ServerMarkdownOptions {
  /** Heading levels added to the server's own (default 2: its `#` nests under our `##`). */
  readonly headingShift?: number;
}

/** ASCII punctuation: what a backslash escapes in CommonMark. */
const PUNCT = /[!-/:-@[-`{-~]/;
/** A fence opening or closing line: up to 3 spaces, then 3+ backticks or tildes. */
const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** `[label](target "title")` at a position (sticky): the target bare or in angle brackets, an optional title. */
const LINK = /\[((?:[^[\]\\\n]|\\.)*)\]\(\s*(<[^<>\n]*>|[^\s()<>]*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/y;
/** A backtick run at a position (sticky). */
const BACKTICKS = /`+/y;
/** Longest text searched for multi-line JSON values (beyond it, text is shown as it is). */
const JSON_SCAN_LIMIT = 200_000;

/** The lines of safe Markdown for a server's Markdown `text`. */
export function renderServerMarkdown(text: string, options: ServerMarkdownOptions = {}): string[] {
  const shift = options.headingShift ?? 2;
  const out: string[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (!prose.length) return;
    for (const part of splitJson(prose.join('\n'))) {
      if (part.kind === 'json') out.push(...markdownFence(JSON.stringify(part.value, null, 2), 'json'));
      else for (const line of part.text.split('\n')) out.push(blockLine(line, shift));
    }
    prose = [];
  };
  let fence: string | undefined;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (fence) {
      const close = FENCE.exec(line);
      if (close && close[2]![0] === fence[0] && close[2]!.length >= fence.length && !close[3]!.trim()) {
        out.push(fence);
        fence = undefined;
      } else {
        out.push(line);
      }
      continue;
    }
    const open = FENCE.exec(line);
    // A backtick fence's info string may not contain a backtick (CommonMark); only a plain language name is kept.
    if (open && !(open[2]![0] === '`' && open[3]!.includes('`'))) {
      flush();
      fence = open[2]!;
      const info = open[3]!.trim();
      out.push(`${fence}${/^[\w+#.-]*$/.test(info) ? info : ''}`);
      continue;
    }
    prose.push(line);
  }
  flush();
  // A fence the server left open is closed here: the rest of the document stays ours.
  if (fence) out.push(fence);
  return out;
}

/** One line outside code blocks: its block marks kept (headings shifted), its inline text made safe, its line break kept. */
function blockLine(line: string, shift: number): string {
  if (!line.trim()) return '';
  const heading = /^( {0,3})(#{1,6})(?=\s|$)(.*)$/.exec(line);
  if (heading) return `${'#'.repeat(Math.min(6, heading[2]!.length + shift))}${inline(heading[3]!)}`;
  // The server's line breaks are its layout (a list of stages, a signature): kept as hard breaks.
  return `${inline(line)}  `;
}

/**
 * Inline Markdown made safe: code spans as they are (nothing in them is parsed), links rebuilt
 * (web pages only), images as links, every `<` and every bracket not part of a link escaped.
 * A server's own backslash escapes are kept with what they escape, so no escape added here can
 * be undone by one of its backslashes.
 */
function inline(text: string): string {
  let out = '';
  let i = 0;
  const at = (re: RegExp) => {
    re.lastIndex = i;
    return re.exec(text);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length && PUNCT.test(text[i + 1]!)) {
      out += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = at(BACKTICKS)![0];
      const end = closingRun(text, i + run.length, run.length);
      if (end >= 0) {
        out += text.slice(i, end + run.length);
        i = end + run.length;
      } else {
        out += run.replace(/`/g, '\\`');
        i += run.length;
      }
      continue;
    }
    if (c === '!' && text[i + 1] === '[') {
      i++;
      const image = at(LINK);
      if (image) {
        out += imageLink(image[1]!, target(image[2]!));
        i += image[0].length;
      } else {
        out += '!';
      }
      continue;
    }
    const link = c === '[' ? at(LINK) : null;
    if (link) {
      out += webLink(inline(link[1]!), target(link[2]!));
      i += link[0].length;
      continue;
    }
    if (c === '[' || c === ']' || c === '<') {
      out += `\\${c}`;
      i++;
      continue;
    }
    // `command:` outside a link is no URI to any linkifier either.
    if ((c === 'c' || c === 'C') && text.slice(i, i + 8).toLowerCase() === 'command:') {
      out += `${text.slice(i, i + 7)}\\:`;
      i += 8;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** Where a backtick run of `length` closes a code span started before `from` (-1: it does not). */
function closingRun(text: string, from: number, length: number): number {
  const re = /`+/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) if (m[0].length === length) return m.index;
  return -1;
}

function target(raw: string): string {
  return raw.startsWith('<') ? raw.slice(1, -1) : raw;
}

/** Whether a link may point there: a web page (http or https) only. */
function isWebUrl(url: string): boolean {
  try {
    const scheme = new URL(url).protocol;
    return scheme === 'http:' || scheme === 'https:';
  } catch {
    return false;
  }
}

/** Characters that could end a link target early, percent-encoded. */
function encodeTarget(url: string): string {
  return url.replace(/[\s()<>\\`[\]"']/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** A link with an already safe label: to a web page, else the label with its target shown as code. */
function webLink(label: string, url: string): string {
  if (!isWebUrl(url)) return `${label} (${markdownCodeSpan(url)})`;
  return `[${label}](${encodeTarget(url)})`;
}

/** An image is never embedded: a link to it (a web page) or its description. */
function imageLink(alt: string, url: string): string {
  const label = `${escapeMarkdown(alt.trim() || 'image')} (image)`;
  return isWebUrl(url) ? `[${label}](${encodeTarget(url)})` : label;
}

type Part = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'json'; readonly value: unknown };

/**
 * Splits out JSON values written over several lines (`Raw result: {` … `}`): Markdown would
 * join their lines into one paragraph and lose the indentation. A value counts when its opening
 * bracket ends a line (or is the whole line's start) and its closing one ends a later line.
 */
function splitJson(text: string): Part[] {
  if (text.length > JSON_SCAN_LIMIT || !/[{[]\s*\n/.test(text)) return [{ kind: 'text', text }];
  const parts: Part[] = [];
  let last = 0;
  const opener = /([{[])[ \t]*\n/g;
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    const start = m.index;
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    const end = matchingBracket(text, start);
    if (end < 0) continue;
    const after = text.indexOf('\n', end);
    if (text.slice(end + 1, after < 0 ? text.length : after).trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end + 1));
    } catch {
      continue;
    }
    const before = text.slice(lineStart, start);
    const head = text.slice(last, lineStart) + (before.trim() ? `${before.trimEnd()}\n` : '');
    if (head) parts.push({ kind: 'text', text: head.replace(/\n$/, '') });
    parts.push({ kind: 'json', value });
    last = after < 0 ? text.length : after + 1;
    opener.lastIndex = last;
  }
  if (last === 0) return [{ kind: 'text', text }];
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}

/** The index of the bracket closing the one at `start` (strings skipped), or -1. */
function matchingBracket(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}
