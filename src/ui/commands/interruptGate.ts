/**
 * Stopping or restarting a server ends what is in flight on it: a stdio server that restarts is
 * a new process that knows none of its tasks. Before that happens the user is told how many
 * tasks would be interrupted and chooses: cancel them first (they end as cancelled, and the
 * server hears it), go ahead anyway (they end as lost when the server no longer knows them), or
 * keep the server running.
 */
import * as vscode from 'vscode';
import type { ServerConnection } from '../../core/connection/connection.js';
import type { TaskActions } from '../../core/view/taskActions.js';
import { isActive, type TaskView } from '../../core/view/taskView.js';
import { showWarning } from '../adapters/notify.js';

export interface InterruptDeps {
  readonly view: TaskView;
  readonly actions: TaskActions;
}

/** The tasks in flight on a server: sent tool calls and received requests not yet finished. */
export function tasksInFlight(view: TaskView, serverId: string) {
  return view.items().filter((i) => i.serverId === serverId && isActive(i.state));
}

/**
 * Asks before `verb`-ing a server with tasks in flight. Resolves `true` to go ahead (after
 * cancelling them if the user chose so), `false` to leave the server alone.
 */
export async function confirmInterrupt(deps: InterruptDeps, connection: ServerConnection, verb: 'Stop' | 'Restart'): Promise<boolean> {
  const inFlight = tasksInFlight(deps.view, connection.id);
  if (inFlight.length === 0) return true;
  const n = inFlight.length;
  const cancelFirst = verb === 'Stop' ? (n === 1 ? vscode.l10n.t('Cancel the Task and Stop') : vscode.l10n.t('Cancel {0} Tasks and Stop', n)) : n === 1 ? vscode.l10n.t('Cancel the Task and Restart') : vscode.l10n.t('Cancel {0} Tasks and Restart', n);
  const anyway = verb === 'Stop' ? vscode.l10n.t('Stop Anyway') : vscode.l10n.t('Restart Anyway');
  const choice = await Promise.resolve(
    showWarning(
      verb === 'Stop'
        ? n === 1 ? vscode.l10n.t('Stop "{0}"? 1 task is in flight on it.', connection.name) : vscode.l10n.t('Stop "{0}"? {1} tasks are in flight on it.', connection.name, n)
        : n === 1 ? vscode.l10n.t('Restart "{0}"? 1 task is in flight on it.', connection.name) : vscode.l10n.t('Restart "{0}"? {1} tasks are in flight on it.', connection.name, n),
      {
        modal: true,
        detail:
          connection.definition.transport.type === 'stdio'
            ? vscode.l10n.t('A restarted server is a new process that does not know these tasks: they would end as lost. "{0}" cancels them first, so they end as cancelled.', cancelFirst)
            : vscode.l10n.t('The server may or may not keep these tasks across a reconnect. "{0}" cancels them first, so they end as cancelled.', cancelFirst),
      },
      cancelFirst,
      anyway,
    ),
  ).catch(() => undefined);
  if (choice === anyway) return true;
  if (choice !== cancelFirst) return false;
  await Promise.all(
    inFlight.map((item) => deps.actions.cancel(item, `Cancelled by the user before the server was ${verb === 'Stop' ? 'stopped' : 'restarted'}`).catch(() => undefined)),
  );
  return true;
}
