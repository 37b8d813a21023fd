import type * as vscode from 'vscode';

/**
 * Hands VS Code's single quick-input widget from one prompt to the next without closing it in
 * between: a form's next step, the reply box after the sampling consent, the next queued prompt.
 *
 * Disposing a quick input and showing the next one a moment later makes the workbench close the
 * widget and give the keyboard focus back to where it was (the tree, an editor); on a busy
 * machine the next prompt could then open without the focus, and what the user typed next went
 * to the tree. It also made the widget fade out and in between steps. So a prompt that is
 * answered is only *retired*: it stays on screen until the end of the current turn of the event
 * loop, and if the next quick input is shown in that turn (it is, when the code that follows runs
 * without waiting for I/O), the widget switches to it directly — the pattern of VS Code's own
 * multi-step input sample.
 */
let retired: vscode.QuickInput | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Shows `input`, then disposes a quick input retired in the same turn. */
export function showQuickInput(input: vscode.QuickInput): void {
  input.show();
  disposeRetired(input);
}

/** `input` was answered: dispose it at the end of this turn unless another quick input is shown first. */
export function retireQuickInput(input: vscode.QuickInput): void {
  disposeRetired(input);
  retired = input;
  timer = setTimeout(() => disposeRetired(), 0);
}

function disposeRetired(keep?: vscode.QuickInput): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  const r = retired;
  retired = undefined;
  if (r && r !== keep) r.dispose();
}
