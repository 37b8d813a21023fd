import * as vscode from 'vscode';

/**
 * A `MarkdownString` for text that includes server or workspace text (tooltips): not trusted
 * (no `command:` link runs), no HTML, no theme icons. Append server text only through
 * `escapeMarkdown` / `markdownCodeSpan` (src/core/base/escape.ts). `new vscode.MarkdownString`
 * anywhere else is a lint error (eslint.config.mjs).
 */
export function untrustedMarkdown(): vscode.MarkdownString {
  const md = new vscode.MarkdownString('', false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.supportThemeIcons = false;
  return md;
}
