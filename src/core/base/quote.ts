/**
 * Text a workspace file or a server controls, shown on surfaces that render plain text (a modal
 * dialog's message and detail) or plain text with theme icons (quick pick labels, descriptions
 * and details). There the danger is not a link but a spoof: a line break that starts a line the
 * reader takes for ours ("Verified by your organisation"), a bidi override that reorders what
 * follows, a zero-width character that hides one, or `$(pass-filled)` drawn as a reassuring icon.
 */

/** Control, format (bidi overrides, zero-width) and line/paragraph separator characters. */
const INVISIBLE_OR_BREAKING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `"text"`: one quoted line, exactly as long as it looks. Quotes and backslashes are escaped as in
 * JSON, every control, format or separator character shows as `\uXXXX`.
 */
export function quoteText(text: string): string {
  return JSON.stringify(text).replace(INVISIBLE_OR_BREAKING, unicodeEscape);
}

/** The quotes {@link quoteLabel} draws around a text: shown as escapes inside it, so none ends the quote early. */
const LABEL_QUOTES = /[\u201C\u201D]/g;

/**
 * `“text”` for a quick pick's label, description or detail: as {@link quoteText} one quoted line
 * exactly as long as it looks, but readable — the text's own `"` and `\` stay as written (a JSON
 * escape showed `\"cancel palette\"` to the user); only the typographic quotes around it are
 * escaped inside it, so the text cannot close the quote and go on as if it were ours. No icon is
 * drawn ({@link plainLabel}).
 */
export function quoteLabel(text: string): string {
  return plainLabel(`\u201C${text.replace(INVISIBLE_OR_BREAKING, unicodeEscape).replace(LABEL_QUOTES, unicodeEscape)}\u201D`);
}

/** `$(name)` and `$(name~spin)`: what VS Code draws as a theme icon in labels (its own pattern). */
const THEME_ICON = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g;

/**
 * For a quick pick's label, description or detail: the text as written, on one line, with no
 * `$(icon)` drawn (VS Code's own escape, a backslash before `$(`, shows it as the characters it is)
 * and control, format and separator characters as `\uXXXX`.
 */
export function plainLabel(text: string): string {
  return text.replace(INVISIBLE_OR_BREAKING, unicodeEscape).replace(THEME_ICON, (m, escaped: string | undefined) => (escaped ? m : `\\${m}`));
}
