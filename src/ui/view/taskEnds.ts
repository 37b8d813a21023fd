/**
 * A task the user started that ends badly — failed, expired, or given up (lost, errors) — says so
 * once, in a notification with a button that opens it: it no longer ends silently in a tree the
 * user may not be looking at (an expired task's question toast just vanished). Once per task: an
 * end seen when this window began (loaded from storage, told in the window that saw it happen)
 * is never told again. Left out: tasks the chat agent started (the chat
 * gets their outcome), tasks found through tasks/list, and ends the user chose (cancelled).
 * Likewise, once per task: a question its server asked before a reload that could not be answered
 * after it (core/requestor/keptQuestion.ts) — the server went on without the answer.
 */
import * as vscode from 'vscode';
import type { SentTaskSnapshot, TaskTracker } from '../../core/requestor/tracker.js';
import { outcomeLine } from '../../core/view/rowText.js';
import { isFinished, sentItem, type TaskViewItem } from '../../core/view/taskView.js';
import { Commands } from '../commands/commandIds.js';
import { failed, showWarning } from '../adapters/notify.js';
import { taskTitle } from './taskTitle.js';

export class TaskEndSignals implements vscode.Disposable {
  /** Keys of the tasks whose end is known (told, or not to be told). */
  private readonly _ended = new Set<string>();
  /** Keys of the tasks whose dropped question is known (told, or seen when this window began). */
  private readonly _dropped = new Set<string>();
  private readonly _sub: { dispose(): void };
  private readonly _load: { dispose(): void };
  /** Every end told, for tests: the row id and the message. */
  readonly shown: Array<{ readonly id: string; readonly message: string }> = [];

  constructor(private readonly _tracker: Pick<TaskTracker, 'onDidChange' | 'whenLoaded' | 'get' | 'snapshot'>) {
    // What this window began with, taken when the tracker reads it (after activation, or at its first need).
    this._load = _tracker.whenLoaded(() => {
      for (const s of _tracker.snapshot()) {
        if (isFinished(sentItem(s).state)) this._ended.add(s.key);
        if (s.questionDropped) this._dropped.add(s.key);
      }
    });
    this._sub = _tracker.onDidChange(({ key, kind }) => {
      if (kind === 'removed') {
        this._ended.delete(key);
        this._dropped.delete(key);
        return;
      }
      const s = this._tracker.get(key);
      if (s?.questionDropped && !this._dropped.has(key)) {
        this._dropped.add(key);
        if (kind === 'updated') this._tellDropped(s);
      }
      if (!s || this._ended.has(key)) return;
      const item = sentItem(s);
      if (!isFinished(item.state)) return;
      this._ended.add(key);
      // Only an end seen happening here is told (a task added already ended, e.g. a listed one, is not).
      if (kind === 'updated') this._tell(item);
    });
  }

  private _tell(i: TaskViewItem): void {
    if (i.origin !== 'local' || i.startedBy === 'chat') return;
    const line = outcomeLine(i);
    const title = taskTitle(i);
    let message: string;
    switch (i.state) {
      case 'failed':
        message = line ? vscode.l10n.t('MCP Tasks: "{0}" on "{1}" failed: {2}', title, i.serverName, line) : vscode.l10n.t('MCP Tasks: "{0}" on "{1}" failed.', title, i.serverName);
        break;
      case 'expired':
        message = line ? vscode.l10n.t('MCP Tasks: "{0}" on "{1}" expired: {2}', title, i.serverName, line) : vscode.l10n.t('MCP Tasks: "{0}" on "{1}" expired.', title, i.serverName);
        break;
      case 'error':
        message = line ? vscode.l10n.t('MCP Tasks: "{0}" on "{1}" ended without its result: {2}', title, i.serverName, line) : vscode.l10n.t('MCP Tasks: "{0}" on "{1}" ended without its result.', title, i.serverName);
        break;
      default:
        return;
    }
    this.shown.push({ id: i.id, message });
    const open = vscode.l10n.t('Open');
    void showWarning(message, open)
      .then(async (choice) => {
        if (choice === open) await vscode.commands.executeCommand(Commands.retrieveResult, { kind: 'task', id: i.id });
      })
      .then(undefined, failed(vscode.l10n.t('Opening "{0}"', title)));
  }

  /** The server went on without the answer to a question asked before a reload. */
  private _tellDropped(s: SentTaskSnapshot): void {
    const dropped = s.questionDropped;
    if (!dropped) return;
    const item = sentItem(s);
    const title = taskTitle(item);
    let why: string;
    switch (dropped.kind) {
      case 'new-session':
        why = vscode.l10n.t('the server is in a new session, and the question belonged to the old one.');
        break;
      case 'server-went-on':
        why = vscode.l10n.t('it stopped waiting for the answer.');
        break;
      case 'not-kept':
        why = vscode.l10n.t('the question was too large to keep across the reload.');
        break;
      case 'answer-not-sent':
        why = vscode.l10n.t('the answer could not be sent.');
        break;
      case 'cannot-ask':
        why = vscode.l10n.t('this window does not answer its questions.');
        break;
    }
    const message = vscode.l10n.t('MCP Tasks: "{0}" on "{1}" went on without your answer to its question asked before the reload: {2}', title, s.serverName, why);
    this.shown.push({ id: item.id, message });
    const open = vscode.l10n.t('Open');
    void showWarning(message, open)
      .then(async (choice) => {
        if (choice === open) await vscode.commands.executeCommand(Commands.retrieveResult, { kind: 'task', id: item.id });
      })
      .then(undefined, failed(vscode.l10n.t('Opening "{0}"', title)));
  }

  dispose(): void {
    this._sub.dispose();
    this._load.dispose();
    this._ended.clear();
    this._dropped.clear();
  }
}
