/**
 * How a task shows wherever it is listed (its tree row, the Respond and Cancel pickers): its state's
 * word and icon, its description, its row and its tooltip.
 */
import * as vscode from 'vscode';
import { escapeMarkdown } from '../../core/base/escape.js';
import { plainLabel } from '../../core/base/quote.js';
import { isActive, isFinished, taskContextValue, wireLabel, type TaskViewItem, type TaskViewState } from '../../core/view/taskView.js';
import { endedAt, outcomeLine, serverStatusBeside, shortArguments } from '../../core/view/rowText.js';
import { Commands } from '../commands/commandIds.js';
import { untrustedMarkdown } from '../documents/markdown.js';
import { taskTitle } from './taskTitle.js';

/** The icon of a task state (codicons with theme colours). */
export function stateIcon(s: TaskViewState): vscode.ThemeIcon {
  switch (s) {
    case 'queued':
      return new vscode.ThemeIcon('clock', new vscode.ThemeColor('disabledForeground'));
    case 'sending':
    case 'running':
    case 'working':
      return new vscode.ThemeIcon('sync~spin');
    case 'waitingForUser':
    case 'inputRequired':
      return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('list.warningForeground'));
    case 'paused':
      return new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('disabledForeground'));
    case 'orphaned':
      return new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('disabledForeground'));
    case 'completed':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
    case 'expired':
      return new vscode.ThemeIcon('history', new vscode.ThemeColor('disabledForeground'));
    case 'error':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
  }
}

/** A short word for a state, shown in descriptions and quick picks. */
export function stateLabel(s: TaskViewState): string {
  switch (s) {
    case 'queued':
      return vscode.l10n.t('queued');
    case 'sending':
      return vscode.l10n.t('sending');
    case 'running':
      return vscode.l10n.t('running');
    case 'working':
      return vscode.l10n.t('working');
    case 'waitingForUser':
      return vscode.l10n.t('waiting for you');
    case 'inputRequired':
      return vscode.l10n.t('input required');
    case 'paused':
      return vscode.l10n.t('paused');
    case 'orphaned':
      return vscode.l10n.t('orphaned (server removed)');
    case 'completed':
      return vscode.l10n.t('completed');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'cancelled':
      return vscode.l10n.t('cancelled');
    case 'expired':
      return vscode.l10n.t('expired');
    case 'error':
      return vscode.l10n.t('error');
  }
}

/** Elapsed time as "12s", "3m 04s", "2h 05m". */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return vscode.l10n.t('{0}s', s);
  const m = Math.floor(s / 60);
  if (m < 60) return vscode.l10n.t('{0}m {1}s', m, String(s % 60).padStart(2, '0'));
  return vscode.l10n.t('{0}h {1}m', Math.floor(m / 60), String(m % 60).padStart(2, '0'));
}

/** The description's first word for a task the chat agent started (English; shown through `vscode.l10n.t('by chat')`). */
export const STARTED_BY_CHAT = 'by chat';

/**
 * The description: a call's arguments in a few words, elapsed time (stopped at its end once finished), progress % and the status
 * message while it runs; once finished, its outcome (outcomeLine), not the last status or
 * progress message it showed while it worked. `ticking: false` leaves out the elapsed time unless
 * it is fixed (a finished task's), for a row that must not change every second.
 */
export function taskDescription(i: TaskViewItem, now = Date.now(), ticking = true, argsInTitle = false, waitsOnYou = false): string {
  const parts: string[] = [];
  // A call's arguments in a few words, first: thirty runs of one tool told apart at a glance
  // (left out when the row's title starts with those that tell it apart: taskTreeItem).
  const args = i.direction === 'sent' && !argsInTitle ? shortArguments(i.argsSummary) : undefined;
  if (args) parts.push(args);
  const end = endedAt(i);
  if (ticking || end !== undefined) parts.push(formatElapsed((end ?? now) - i.createdAt));
  const active = isActive(i.state);
  if (active && i.progress?.total) parts.push(`${Math.round((i.progress.progress / i.progress.total) * 100)}%`);
  // A call whose request waits for the user is waiting for the user, whatever phase it is in
  // ("sending: asks for input (round 1)" said neither what it waits for nor who).
  const msg = waitsOnYou && active ? undefined : i.direction === 'sent' && isFinished(i.state) ? outcomeLine(i) : i.progress?.message && active ? i.progress.message : i.detail;
  const word = waitsOnYou && active ? stateLabel('waitingForUser') : stateLabel(i.state);
  parts.push(msg ? `${word}: ${msg}` : word);
  if (i.startedBy === 'chat') parts.unshift(vscode.l10n.t('by chat'));
  return parts.join(' · ');
}

/**
 * A task's row; `ticking: false` for a row that must not change every second (an elapsed time
 * still growing is left out). `distinguishing`: the arguments that tell this call apart from the
 * other calls of its tool in its group (rowText.ts `distinguishingArguments`), put before the
 * tool's name — a narrow sidebar cuts a row from its end, and a long tool name took all of it.
 */
export function taskTreeItem(i: TaskViewItem, ticking = true, distinguishing?: string, waitsOnYou = false): vscode.TreeItem {
  const label = distinguishing ? vscode.l10n.t('{0} · {1}', distinguishing, taskTitle(i)) : taskTitle(i);
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = i.id;
  // `waitsOnYou`: a sent call with a request nested under it that waits for the user.
  const waiting = waitsOnYou && isActive(i.state);
  item.description = taskDescription(i, Date.now(), ticking, !!distinguishing, waiting);
  item.iconPath = stateIcon(waiting ? 'waitingForUser' : i.state);
  item.contextValue = taskContextValue(i);
  // The tooltip comes from resolveTreeItem, on hover.
  item.accessibilityInformation = { label: `${label} ${item.description}` };
  // A click answers what waits: the request itself, or (a call waiting for input) the request nested under it.
  item.command =
    waiting || i.state === 'waitingForUser' || i.state === 'inputRequired'
      ? { command: Commands.respond, title: vscode.l10n.t('Respond'), arguments: [{ kind: 'task', id: i.id }] }
      : isFinished(i.state) || i.origin === 'listed'
        ? { command: Commands.retrieveResult, title: vscode.l10n.t('Retrieve Result'), arguments: [{ kind: 'task', id: i.id }] }
        : undefined;
  return item;
}

export function taskTooltip(i: TaskViewItem): vscode.MarkdownString {
  const md = untrustedMarkdown();
  const end = endedAt(i);
  md.appendMarkdown(`${i.direction === 'sent' ? vscode.l10n.t('**{0}** — sent to {1}', escapeMarkdown(taskTitle(i)), escapeMarkdown(i.serverName)) : vscode.l10n.t('**{0}** — received from {1}', escapeMarkdown(taskTitle(i)), escapeMarkdown(i.serverName))}\n\n`);
  const rows: Array<[string, string | undefined]> = [
    // A call the server made no task of has only this window's id: not shown as the server's taskId.
    ['taskId', i.task ? i.taskId : undefined],
    [vscode.l10n.t('local id'), i.task ? undefined : i.taskId],
    // What the row says; the server's last word beside it when that differs (a lost task it last called working).
    ['status', stateLabel(i.state)],
    [vscode.l10n.t('last status from the server'), serverStatusBeside(i)],
    [vscode.l10n.t('ended'), end !== undefined ? new Date(end).toISOString() : undefined],
    ['statusMessage', i.task?.statusMessage],
    ['createdAt', i.task?.createdAt ?? new Date(i.createdAt).toISOString()],
    ['lastUpdatedAt', i.task?.lastUpdatedAt],
    ['ttl', i.task ? (i.task.ttl === null ? vscode.l10n.t('unlimited') : `${i.task.ttl} ms`) : undefined],
    ['pollInterval', i.task?.pollInterval !== undefined ? `${i.task.pollInterval} ms` : undefined],
    ['wire', wireLabel(i.wire)],
    [vscode.l10n.t('progress'), i.progress ? `${i.progress.progress}${i.progress.total ? ` / ${i.progress.total}` : ''}${i.progress.message ? ` — ${i.progress.message}` : ''}` : undefined],
    [vscode.l10n.t('arguments'), i.argsSummary],
    [vscode.l10n.t('note'), i.detail && i.detail !== i.task?.statusMessage ? i.detail : undefined],
    [vscode.l10n.t('origin'), i.origin === 'listed' ? vscode.l10n.t('found through tasks/list (not sent from this window)') : undefined],
    [vscode.l10n.t('started by'), i.startedBy === 'chat' ? vscode.l10n.t('the chat agent (language-model tool); cancel it here like any task') : undefined],
  ];
  // The local hint (servers read only the state: src/core/forms/statusMessages.ts).
  if (i.state === 'waitingForUser') md.appendMarkdown(`${vscode.l10n.t('Waiting for you: click the row, or run "MCP Tasks: Respond…", to answer.')}\n\n`);
  if (i.state === 'inputRequired') md.appendMarkdown(`${vscode.l10n.t('The server needs your input: click the row to answer the request under it.')}\n\n`);
  md.appendMarkdown('| | |\n|---|---|\n');
  for (const [k, v] of rows) if (v !== undefined && v !== '') md.appendMarkdown(`| ${k} | ${escapeMarkdown(v)} |\n`);
  if (i.audit?.length) {
    md.appendMarkdown(`\n**${vscode.l10n.t('Audit trail')}**\n\n`);
    for (const a of i.audit.slice(-12)) md.appendMarkdown(`- ${new Date(a.at).toLocaleTimeString()} ${escapeMarkdown(a.event)}${a.detail ? `: ${escapeMarkdown(a.detail)}` : ''}\n`);
  }
  return md;
}

/**
 * A task as a quick pick row: its state icon and title; its server, `where` and state; what its
 * row shows and its id. Titles, server names, status messages and ids are the server's or the
 * workspace's words: drawn as written (plainLabel), so none draws an icon or breaks a line.
 */
export function taskPickRow(i: TaskViewItem, where: string): { label: string; description: string; detail: string } {
  return {
    label: `$(${stateIcon(i.state).id}) ${plainLabel(taskTitle(i))}`,
    description: `${plainLabel(i.serverName)} · ${where} · ${stateLabel(i.state)}`,
    detail: plainLabel(`${taskDescription(i)} · ${i.taskId}`),
  };
}
