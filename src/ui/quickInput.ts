import * as vscode from 'vscode';
import { retireQuickInput, showQuickInput } from './quickInputHandoff.js';
import { escapeLinkedText } from '../core/base/escape.js';

// Single quick picks and input boxes that close on Escape or when their token is cancelled.

/** A single-select quick pick that resolves undefined on Escape and closes when `token` is cancelled. */
export function showPick<T extends vscode.QuickPickItem>(
  items: readonly T[],
  options: { title: string; placeholder?: string; token: vscode.CancellationToken; step?: number; totalSteps?: number; buttons?: vscode.QuickInputButton[]; activeItem?: T },
): Promise<T | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = options.title;
    qp.placeholder = options.placeholder;
    qp.items = items;
    qp.ignoreFocusOut = true;
    qp.matchOnDescription = true;
    if (options.step) qp.step = options.step;
    if (options.totalSteps) qp.totalSteps = options.totalSteps;
    if (options.activeItem) qp.activeItems = [options.activeItem];
    let done = false;
    const finish = (v: T | undefined) => {
      if (done) return;
      done = true;
      sub.dispose();
      // A pick keeps the widget until the next prompt replaces it (see quickInputHandoff).
      if (v === undefined) qp.dispose();
      else retireQuickInput(qp);
      resolve(v);
    };
    const sub = options.token.onCancellationRequested(() => finish(undefined));
    qp.onDidAccept(() => finish(qp.selectedItems[0]));
    qp.onDidHide(() => finish(undefined));
    showQuickInput(qp);
  });
}

/** An input box that resolves undefined on Escape and closes when `token` is cancelled. */
export function showInput(
  options: { title: string; prompt?: string; placeholder?: string; value?: string; password?: boolean; validate?: (v: string) => string | undefined },
  token: vscode.CancellationToken,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.title = options.title;
    // The line under the input renders `[x](command:…)` as a link: server text must stay text.
    box.prompt = options.prompt === undefined ? undefined : escapeLinkedText(options.prompt);
    box.placeholder = options.placeholder;
    box.value = options.value ?? '';
    box.password = !!options.password;
    box.ignoreFocusOut = true;
    let done = false;
    const finish = (v: string | undefined) => {
      if (done) return;
      done = true;
      sub.dispose();
      if (v === undefined) box.dispose();
      else retireQuickInput(box);
      resolve(v);
    };
    const sub = token.onCancellationRequested(() => finish(undefined));
    const check = (v: string) => {
      const err = options.validate?.(v);
      return err === undefined ? undefined : escapeLinkedText(err);
    };
    box.onDidChangeValue((v) => (box.validationMessage = check(v)));
    box.onDidAccept(() => {
      const err = check(box.value);
      if (err) {
        box.validationMessage = err;
        return;
      }
      finish(box.value);
    });
    box.onDidHide(() => finish(undefined));
    showQuickInput(box);
  });
}
