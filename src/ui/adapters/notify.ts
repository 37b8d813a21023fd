import * as vscode from 'vscode';
import { escapeLinkedText } from '../../core/base/escape.js';

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

/**
 * A notification for a state that changes (a request waiting for you, a server reconnecting):
 * unlike a message, VS Code lets an extension withdraw it. It is a progress notification, so
 * it can say what is happening now ({@link LiveNotice.update}) and goes away the moment that
 * is over ({@link LiveNotice.dispose}); its text is plain text like every notification here.
 * With `onCancel` it has VS Code's "Cancel" button (the only button a progress notification
 * can have), which disposes it and calls `onCancel`. With `link` it ends with one link of our
 * own (e.g. "Respond", beside that destructive Cancel): a command of this extension with
 * arguments we chose, appended after the plain text, so nothing a server sends can change
 * where it goes (text before it can at most change the words it shows).
 */
export interface LiveNotice {
  /** Replaces the text (while shown). */
  update(message: string): void;
  /** Withdraws it (idempotent). */
  dispose(): void;
  readonly disposed: boolean;
  /** The text shown now. */
  readonly text: string;
}

/** A link of ours at the end of a live notice: runs `command` with `args` on one click. */
export interface NoticeLink {
  /** Already localised; our own words (no server text). */
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** `[label](command:id?args)`: the arguments as a URI-encoded JSON array, as VS Code expects them. */
function commandLink(link: NoticeLink): string {
  return `[${link.label.replace(/[[\]]/g, '')}](command:${link.command}?${encodeURIComponent(JSON.stringify(link.args))})`;
}

/** The live notices on screen now, oldest first. */
const live: Array<{ text: string }> = [];

/** The texts of the live notices on screen now, oldest first (tests read them). */
export function liveNoticeTexts(): string[] {
  return live.map((l) => l.text);
}

/** Shows a {@link LiveNotice}. */
export function showLiveNotice(message: string, options: { readonly onCancel?: () => void; readonly cancelSays?: string; readonly link?: NoticeLink } = {}): LiveNotice {
  const suffix = `${options.link ? ` ${commandLink(options.link)}` : ''}${options.onCancel && options.cancelSays ? ` ${options.cancelSays}` : ''}`;
  const entry = { text: escapeLinkedText(message) + suffix };
  let report: ((m: string) => void) | undefined;
  let end: () => void = () => undefined;
  let disposed = false;
  live.push(entry);
  const notice: LiveNotice = {
    update(m) {
      if (disposed) return;
      entry.text = escapeLinkedText(m) + suffix;
      report?.(entry.text);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      const at = live.indexOf(entry);
      if (at >= 0) live.splice(at, 1);
      end();
    },
    get disposed() {
      return disposed;
    },
    get text() {
      return entry.text;
    },
  };
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, cancellable: options.onCancel !== undefined }, (progress, token) => {
    if (disposed) return Promise.resolve();
    report = (m) => progress.report({ message: m });
    report(entry.text);
    return new Promise<void>((resolve) => {
      const sub = token.onCancellationRequested(() => {
        if (disposed) return;
        notice.dispose();
        options.onCancel?.();
      });
      end = () => {
        sub.dispose();
        resolve();
      };
    });
  });
  return notice;
}
