import * as vscode from 'vscode';
import { retireQuickInput, showQuickInput } from './quickInputHandoff.js';
import { escapeLinkedText } from '../../core/base/escape.js';

// One quick-input step — an input box or a quick pick — for the form flow's steps and the single
// prompts (server, tool, consent, reply). A step resolves once: with a value, with Back, with
// `hidden` (Escape, or another quick input such as the command palette took the widget: VS Code
// does not say which), or with cancel (its token cancelled). An answered step is only retired, so
// the next step takes over the widget without closing it (see quickInputHandoff); a cancelled one
// closes.

/**
 * How a step ended. `hidden` and `back` carry what was in an input box (its draft, not confirmed
 * with Enter), so a form can show it again.
 */
export type StepResult<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'back'; readonly draft?: string }
  | { readonly kind: 'hidden'; readonly draft?: string }
  | { readonly kind: 'cancel' };

export interface StepOptions {
  readonly title: string;
  readonly token: vscode.CancellationToken;
  /** The step counter after the title, `(step/totalSteps)`. */
  readonly step?: number;
  readonly totalSteps?: number;
  /** Offer VS Code's Back button; it resolves `{ kind: 'back' }`. */
  readonly canGoBack?: boolean;
  readonly placeholder?: string;
}

export interface InputStepOptions extends StepOptions {
  /** The line under the input; shown as plain text. */
  readonly prompt?: string;
  readonly value?: string;
  readonly password?: boolean;
  /** Checked as typed and on Enter; a message (shown as plain text) keeps the step open. */
  readonly validate?: (value: string) => string | undefined;
  /** Show the starting value's problem at once (a form field re-opened with its answer). */
  readonly validateInitial?: boolean;
}

export interface PickStepOptions<T extends vscode.QuickPickItem> extends StepOptions {
  /** The focused row of a single-select pick. */
  readonly active?: T;
  /** Multi-select: rows with `picked` start checked. */
  readonly many?: boolean;
  /** Checked on Enter; a message replaces the placeholder and keeps the step open. */
  readonly validate?: (selected: readonly T[]) => string | undefined;
  /** Enter with no row (the filter hides them all): ignored (default) or taken as cancel. */
  readonly emptyAccept?: 'ignore' | 'cancel';
}

/** An input box step. */
export function inputStep(o: InputStepOptions): Promise<StepResult<string>> {
  const box = vscode.window.createInputBox();
  // The line under the input renders `[x](command:…)` as a link: server text (prompts, field
  // titles and descriptions, options) must stay text — in the prompt and in validation messages.
  box.prompt = o.prompt === undefined ? undefined : escapeLinkedText(o.prompt);
  box.value = o.value ?? '';
  box.password = !!o.password;
  const check = (v: string) => {
    const err = o.validate?.(v);
    return err === undefined ? undefined : escapeLinkedText(err);
  };
  if (o.validateInitial && box.value) box.validationMessage = check(box.value);
  return runStep<string>(box, o, () => box.value, (finish) => [
    box.onDidChangeValue((v) => (box.validationMessage = check(v))),
    box.onDidAccept(() => {
      const err = check(box.value);
      if (err) box.validationMessage = err;
      else finish({ kind: 'value', value: box.value });
    }),
  ]);
}

/** A quick pick step; its value is the chosen rows (one row unless `many`). */
export function pickStep<T extends vscode.QuickPickItem>(items: readonly T[], o: PickStepOptions<T>): Promise<StepResult<readonly T[]>> {
  const qp = vscode.window.createQuickPick<T>();
  qp.items = items;
  qp.canSelectMany = !!o.many;
  qp.matchOnDescription = true;
  if (o.many) qp.selectedItems = items.filter((i) => i.picked);
  else if (o.active) qp.activeItems = [o.active];
  return runStep<readonly T[]>(qp, o, () => undefined, (finish) => [
    qp.onDidAccept(() => {
      const sel = o.many ? qp.selectedItems : qp.activeItems.slice(0, 1);
      if (!o.many && sel.length === 0) {
        if (o.emptyAccept === 'cancel') finish({ kind: 'cancel' });
        return;
      }
      const err = o.validate?.(sel);
      if (err) qp.placeholder = `$(warning) ${err}`;
      else finish({ kind: 'value', value: sel });
    }),
  ]);
}

/** What both kinds share: title, counter, Back, hide and cancellation, and the step's own store. */
function runStep<V>(
  input: vscode.InputBox | vscode.QuickPick<vscode.QuickPickItem>,
  o: StepOptions,
  draft: () => string | undefined,
  wire: (finish: (r: StepResult<V>) => void) => vscode.Disposable[],
): Promise<StepResult<V>> {
  input.title = o.title;
  input.step = o.step;
  input.totalSteps = o.totalSteps;
  input.placeholder = o.placeholder;
  input.ignoreFocusOut = true;
  input.buttons = o.canGoBack ? [vscode.QuickInputButtons.Back] : [];
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: StepResult<V>) => {
      if (done) return;
      done = true;
      store.dispose();
      if (r.kind === 'cancel' || r.kind === 'hidden') input.dispose();
      else retireQuickInput(input);
      resolve(r);
    };
    const store = vscode.Disposable.from(
      o.token.onCancellationRequested(() => finish({ kind: 'cancel' })),
      input.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && finish({ kind: 'back', draft: draft() })),
      input.onDidHide(() => finish({ kind: 'hidden', draft: draft() })),
      ...wire(finish),
    );
    showQuickInput(input);
  });
}

/** A single-select quick pick that resolves undefined on Escape (or hidden) and closes when `token` is cancelled. */
export async function showPick<T extends vscode.QuickPickItem>(items: readonly T[], options: StepOptions): Promise<T | undefined> {
  const r = await pickStep(items, { ...options, emptyAccept: 'cancel' });
  return r.kind === 'value' ? r.value[0] : undefined;
}

/** An input box that resolves undefined on Escape (or hidden) and closes when `token` is cancelled. */
export async function showInput(options: Omit<InputStepOptions, 'token'>, token: vscode.CancellationToken): Promise<string | undefined> {
  const r = await inputStep({ ...options, token });
  return r.kind === 'value' ? r.value : undefined;
}
