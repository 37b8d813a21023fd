import * as vscode from 'vscode';
import type { TaskView } from '../../core/view/taskView.js';
import { escapeMarkdown } from '../../core/base/escape.js';
import { Commands } from '../commands/commandIds.js';
import { untrustedMarkdown } from '../documents/markdown.js';

/**
 * The status-bar task indicator: hidden while nothing is active, else `$(sync~spin) N` with a
 * warning background and `$(bell-dot) W` while requests wait for the user — the view's list
 * ({@link TaskView.waitingForUser}), which the view's badge and "Respond…" read too; then a click
 * opens Respond. Redraws on (coalesced) view events, and when {@link TaskStatusBar.update} is called.
 */
export class TaskStatusBar implements vscode.Disposable {
  private readonly _item: vscode.StatusBarItem;
  private readonly _sub: { dispose(): void };

  constructor(private readonly _view: TaskView) {
    this._item = vscode.window.createStatusBarItem('mcpTasks.status', vscode.StatusBarAlignment.Left, 50);
    this._item.name = vscode.l10n.t('MCP Tasks');
    this._item.command = Commands.focusView;
    this._sub = _view.onDidChange(() => this.update());
    // Drawn first by the extension once the tasks an earlier window kept are read (after activation), then on each change.
  }

  /** The text shown now ('' when hidden); tests read it. */
  get text(): string {
    return this._visible ? this._item.text : '';
  }

  private _visible = false;

  update(): void {
    const c = this._view.counts();
    if (c.active === 0 && c.waiting === 0) {
      this._item.hide();
      this._visible = false;
      return;
    }
    this._item.text = c.waiting > 0 ? `$(sync~spin) ${c.active} $(bell-dot) ${c.waiting}` : `$(sync~spin) ${c.active}`;
    this._item.backgroundColor = c.waiting > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this._item.command = c.waiting > 0 ? Commands.respond : Commands.focusView;
    const md = untrustedMarkdown();
    md.appendMarkdown(`${c.waiting ? vscode.l10n.t('**MCP Tasks** — {0} active, {1} waiting for you', c.active, c.waiting) : vscode.l10n.t('**MCP Tasks** — {0} active', c.active)}\n\n`);
    const states: Array<[string, number]> = [
      [vscode.l10n.t('queued'), c.byState.queued],
      [vscode.l10n.t('working'), c.byState.working + c.byState.sending + c.byState.running],
      [vscode.l10n.t('waiting for you'), c.byState.waitingForUser],
      [vscode.l10n.t('input required'), c.byState.inputRequired],
      [vscode.l10n.t('paused'), c.byState.paused],
      [vscode.l10n.t('completed'), c.byState.completed],
      [vscode.l10n.t('failed'), c.byState.failed],
      [vscode.l10n.t('cancelled'), c.byState.cancelled],
    ];
    for (const [label, n] of states) if (n) md.appendMarkdown(`- ${label}: ${n}\n`);
    if (c.byServer.size) {
      md.appendMarkdown('\n');
      for (const [server, n] of c.byServer) md.appendMarkdown(`- ${vscode.l10n.t('{0}: {1} active', escapeMarkdown(server), n)}\n`);
    }
    md.appendMarkdown(`\n${c.waiting ? vscode.l10n.t('Click to respond.') : vscode.l10n.t('Click to show the Tasks view.')}`);
    this._item.tooltip = md;
    this._item.accessibilityInformation = { label: vscode.l10n.t('MCP Tasks: {0} active, {1} waiting for you', c.active, c.waiting) };
    this._item.show();
    this._visible = true;
  }

  dispose(): void {
    this._sub.dispose();
    this._item.dispose();
  }
}
