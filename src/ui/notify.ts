import * as vscode from 'vscode';
import { escapeLinkedText } from '../core/base/escape.js';

// Notifications. VS Code renders `[label](command:…)` in a notification's message as a link
// that runs the command (with arguments) on one click, and our messages carry text that
// servers and workspace files control (errors, titles, status messages, names). Every
// message is shown through these functions, which show it as plain text: no link in it works.
// Calling `vscode.window.show*Message` anywhere else is a lint error (eslint.config.mjs).
// Options (`modal`, `detail`) and items are passed through; `detail` is made plain text too.

/** The signatures of `vscode.window.showInformationMessage` and its siblings. */
export interface ShowMessage {
  <T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
  <T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
  <T extends vscode.MessageItem>(message: string, ...items: T[]): Thenable<T | undefined>;
  <T extends vscode.MessageItem>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
}

type RawShow = (message: string, options: vscode.MessageOptions, ...items: string[]) => Thenable<unknown>;

function plainText(raw: RawShow): ShowMessage {
  return ((message: string, ...rest: unknown[]) => {
    const first = rest[0];
    const hasOptions = first !== undefined && typeof first === 'object' && first !== null && !('title' in first);
    let options = (hasOptions ? first : {}) as vscode.MessageOptions;
    if (options.detail !== undefined) options = { ...options, detail: escapeLinkedText(options.detail) };
    const items = (hasOptions ? rest.slice(1) : rest) as string[];
    return raw(escapeLinkedText(message), options, ...items);
  }) as ShowMessage;
}

/** `vscode.window.showInformationMessage`, with the message shown as plain text. */
export const showInfo: ShowMessage = plainText((m, o, ...i) => vscode.window.showInformationMessage(m, o, ...i));
/** `vscode.window.showWarningMessage`, with the message shown as plain text. */
export const showWarning: ShowMessage = plainText((m, o, ...i) => vscode.window.showWarningMessage(m, o, ...i));
/** `vscode.window.showErrorMessage`, with the message shown as plain text. */
export const showError: ShowMessage = plainText((m, o, ...i) => vscode.window.showErrorMessage(m, o, ...i));

/**
 * For the end of a notification's action chain (`void showX(…).then(act).then(undefined, failed(what))`):
 * an action that fails (a command, a file, SecretStorage) is shown as an error naming it, rather than
 * left as an unhandled rejection in the extension host. `what` is already localised.
 */
export function failed(what: string): (e: unknown) => void {
  return (e) => void showError(vscode.l10n.t('MCP Tasks: {0} failed: {1}', what, e instanceof Error ? e.message : String(e)));
}
