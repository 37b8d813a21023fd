import * as vscode from 'vscode';
import { addServerToConfigText } from '../../core/config/config.js';
import { consentLabel, type ConsentRecord, type ConsentStore } from '../../core/config/consent.js';
import { errorMessage } from '../../core/base/errors.js';
import { plainLabel } from '../../core/base/quote.js';
import type { ServerConnection } from '../../core/connection/connection.js';
import type { ServerRegistry } from '../../core/connection/registry.js';
import type { TaskTracker } from '../../core/requestor/tracker.js';
import type { TaskLedger } from '../../core/receiver/ledger.js';
import { isCancellable, isDismissable, isFinished, type TaskView, type TaskViewItem } from '../../core/view/taskView.js';
import type { TaskActions } from '../../core/view/taskActions.js';
import { Commands, ContextKeys, Views } from './commandIds.js';
import type { ServerLogs } from '../servers/logs.js';
import type { PromptQueue } from '../prompts/prompts.js';
import type { TaskDocumentProvider } from '../documents/resultDocuments.js';
import { pickWaitingPrompt, respondables, respondTarget } from './respondPick.js';
import type { InputValueStore } from '../prompts/inputStore.js';
import { MCP_JSON, openAt, refusalWords, type ServerConfigSource } from '../servers/serverConfig.js';
import { readConfigFile } from '../../core/config/boundedRead.js';
import { confirmInterrupt } from './interruptGate.js';
import { serverIcon, shortState } from '../view/serverPresentation.js';
import { taskPickRow } from '../view/taskPresentation.js';
import { taskTitle } from '../view/taskTitle.js';
import { rowsInTreeOrder } from '../../core/view/treeOrder.js';
import type { TasksNode } from '../view/tasksTree.js';
import type { ToolRunner } from './toolRunner.js';
import { showError, showInfo, showWarning } from '../adapters/notify.js';
import { askCancelScope, openChildren } from './cancelWithChildren.js';
import { unlessShownByState } from '../servers/serverErrors.js';
import type { OpenRequests } from '../../core/view/openRequests.js';
import { confirmTaskAction, taskArgSource } from './taskArgs.js';
import { knownArguments } from '../../core/view/rowText.js';

export interface CommandDeps {
  readonly registry: ServerRegistry;
  readonly ledger: TaskLedger;
  readonly tracker: TaskTracker;
  readonly view: TaskView;
  /** Cancel, remove and retrieve of a row, whichever side it is on. */
  readonly actions: TaskActions;
  readonly logs: ServerLogs;
  readonly prompts: PromptQueue;
  /** The open plain requests (not tasks) servers sent. */
  readonly requests: OpenRequests;
  readonly consents: ConsentStore;
  readonly inputs: InputValueStore;
  readonly config: ServerConfigSource;
  readonly toolRunner: ToolRunner;
  /** The task documents (Retrieve Result opens one). */
  readonly documents: TaskDocumentProvider;
  /** Whether an argument is a task row of the Tasks tree (the node object it made). */
  readonly madeByTree: (node: object) => boolean;
}

type ServerArg = TasksNode | string | undefined;
type TaskArg = TasksNode | string | undefined;

/** Registers every command; returns their disposables. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { registry, tracker, view, logs, prompts, consents, config } = deps;

  /**
   * The server to act on: named (a row, an argument), picked, or the only one that fits. That last
   * one is chosen without a pick, so `announce` (what is done to it) names it: "Start Server" once
   * started a server without saying which.
   */
  const pickServer = async (arg: ServerArg, filter: (c: ServerConnection) => boolean, placeholder: string, announce?: (name: string) => string): Promise<ServerConnection | undefined> => {
    const id = typeof arg === 'string' ? arg : arg?.kind === 'server' ? arg.serverId : undefined;
    if (id) return registry.get(id);
    const candidates = registry.connections.filter(filter);
    if (candidates.length === 0) {
      void showInfo(vscode.l10n.t('MCP Tasks: no server fits. Configure servers in .vscode/mcp.json.'));
      return undefined;
    }
    if (candidates.length === 1) {
      if (announce) void showInfo(announce(candidates[0]!.name));
      return candidates[0];
    }
    const pick = await vscode.window.showQuickPick(
      // Names come from workspace files: no `$(icon)` drawn, no line breaks (plainLabel).
      candidates.map((c) => ({ label: plainLabel(c.name), description: shortState(c.state), iconPath: serverIcon(c.state), connection: c })),
      { placeHolder: placeholder },
    );
    return pick?.connection;
  };

  const pickTask = async (arg: TaskArg, filter: (i: TaskViewItem) => boolean, placeholder: string, empty: string): Promise<TaskViewItem | undefined> => {
    const id = typeof arg === 'string' ? arg : arg?.kind === 'task' ? arg.id : undefined;
    if (id) return view.item(id);
    // In the tree's order and groups: a call's question is listed under the call, as its question.
    const serverIds = registry.connections.map((c) => c.id);
    for (const id of view.serverIds()) if (!serverIds.includes(id)) serverIds.push(id);
    const candidates = rowsInTreeOrder(view, serverIds).filter((r) => filter(r.item));
    if (candidates.length === 0) {
      void showInfo(vscode.l10n.t('MCP Tasks: {0}', empty));
      return undefined;
    }
    type Row = vscode.QuickPickItem & { item?: TaskViewItem };
    const rows: Row[] = [];
    let heading = '';
    for (const r of candidates) {
      const server = plainLabel(registry.get(r.serverId)?.name ?? r.item.serverName);
      const group = r.group === 'sent' ? vscode.l10n.t('Sent') : vscode.l10n.t('Received');
      if (`${server}\0${group}` !== heading) {
        heading = `${server}\0${group}`;
        rows.push({ label: `${server} · ${group}`, kind: vscode.QuickPickItemKind.Separator });
      }
      const where = r.parent ? vscode.l10n.t('question of "{0}"', taskTitle(r.parent)) : r.group === 'sent' ? vscode.l10n.t('sent') : vscode.l10n.t('received');
      const row = taskPickRow(r.item, where);
      rows.push({ ...row, label: r.parent ? `↳ ${row.label}` : row.label, item: r.item });
    }
    const pick = await vscode.window.showQuickPick(rows, { placeHolder: placeholder, matchOnDescription: true, matchOnDetail: true });
    return pick?.item;
  };

  const guard =
    <A extends unknown[]>(what: string, fn: (...args: A) => Promise<unknown> | unknown) =>
    async (...args: A) => {
      try {
        await fn(...args);
      } catch (e) {
        void showError(vscode.l10n.t('MCP Tasks: {0} failed: {1}', what, errorMessage(e)));
      }
    };

  /**
   * A task to change (cancel, remove, dismiss): the row the user acted on or picked, or — named by
   * an argument from elsewhere (another extension, a link) — only once the user confirmed it (taskArgs.ts).
   */
  const pickTaskToChange = async (arg: TaskArg, action: string, filter: (i: TaskViewItem) => boolean, placeholder: string, empty: string): Promise<TaskViewItem | undefined> => {
    const named = typeof arg === 'string' || arg?.kind === 'task';
    const item = await pickTask(arg, filter, placeholder, empty);
    if (!item || !named || taskArgSource(arg, deps.madeByTree) !== 'other') return item;
    return (await confirmTaskAction(item, action)) ? item : undefined;
  };

  const cancelItem = async (item: TaskViewItem) => {
    const children = item.direction === 'sent' ? openChildren(view, item) : [];
    if (children.length) {
      const scope = await askCancelScope(item, children);
      if (!scope) return;
      for (const c of children) deps.actions.cancelReceived(c, 'Cancelled by the user');
      if (scope === 'children') return;
    }
    const outcome = await deps.actions.cancel(item, 'Cancelled by the user');
    switch (outcome.kind) {
      case 'cancelled':
        return;
      case 'already-finished':
        void showInfo(vscode.l10n.t('MCP Tasks: "{0}" had already finished.', item.title));
        return;
      case 'not-cancelled':
        void showInfo(vscode.l10n.t('MCP Tasks: {0}', outcome.reason));
        return;
    }
  };

  return [
    vscode.commands.registerCommand(
      Commands.startServer,
      guard(vscode.l10n.t('Start server'), async (arg: ServerArg) => {
        const c = await pickServer(arg, (c) => c.state.kind !== 'running', vscode.l10n.t('Start which server?'), (name) => vscode.l10n.t('MCP Tasks: starting "{0}", the only server not running.', name));
        if (c) await registry.start(c.id).catch(unlessShownByState(registry, c.id));
      }),
    ),
    vscode.commands.registerCommand(
      Commands.stopServer,
      guard(vscode.l10n.t('Stop server'), async (arg: ServerArg) => {
        const c = await pickServer(arg, (c) => c.state.kind === 'running' || c.state.kind === 'starting', vscode.l10n.t('Stop which server?'));
        if (c && (await confirmInterrupt(deps, c, 'Stop'))) await registry.stop(c.id);
      }),
    ),
    vscode.commands.registerCommand(
      Commands.restartServer,
      guard(vscode.l10n.t('Restart server'), async (arg: ServerArg) => {
        const c = await pickServer(arg, () => true, vscode.l10n.t('Restart which server?'));
        if (c && (await confirmInterrupt(deps, c, 'Restart'))) await registry.restart(c.id).catch(unlessShownByState(registry, c.id));
      }),
    ),
    vscode.commands.registerCommand(Commands.showLog, async (arg: ServerArg) => {
      const c = await pickServer(arg, () => true, vscode.l10n.t('Show the log of which server?'));
      if (c) logs.show(c.id, c.name);
    }),
    vscode.commands.registerCommand(Commands.openConfig, guard(vscode.l10n.t('Open mcp.json'), () => openConfig(config))),
    vscode.commands.registerCommand(Commands.addServer, guard(vscode.l10n.t('Add server'), () => addServer())),
    vscode.commands.registerCommand(
      Commands.refresh,
      guard(vscode.l10n.t('Refresh'), async () => {
        // Said while it runs (the view's progress bar) and when done (the status bar): a refresh
        // that changes nothing once looked like a click that did nothing.
        const running = registry.connections.filter((c) => c.state.kind === 'running');
        const listed = await vscode.window.withProgress({ location: { viewId: Views.tasks } }, async () => {
          await config.reload();
          const counts = await Promise.all(running.map((c) => tracker.mergeServerList(c).catch((e) => (c.log.warn(`tasks/list failed: ${errorMessage(e)}`), 0))));
          return counts.reduce((a, b) => a + b, 0);
        });
        const done =
          running.length === 1
            ? vscode.l10n.t('MCP Tasks: refreshed mcp.json and the tasks of 1 running server ({0} new).', listed)
            : vscode.l10n.t('MCP Tasks: refreshed mcp.json and the tasks of {0} running servers ({1} new).', running.length, listed);
        // Hides itself after 5 s.
        vscode.window.setStatusBarMessage(`$(check) ${done}`, 5000);
      }),
    ),
    vscode.commands.registerCommand(Commands.runTool, guard(vscode.l10n.t('Run tool'), (arg: ServerArg) => deps.toolRunner.run(typeof arg === 'string' ? arg : arg?.kind === 'server' ? arg.serverId : undefined))),
    vscode.commands.registerCommand(
      Commands.runAgain,
      guard(vscode.l10n.t('Run again'), async (arg: TaskArg) => {
        const item = await pickTask(arg, (i) => i.direction === 'sent' && i.parentId === undefined, vscode.l10n.t('Run which call again?'), vscode.l10n.t('no tool call to run again.'));
        if (item?.direction !== 'sent' || !item.key) return;
        // Its arguments as sent while this window keeps them (memory only), else what the stored summary shows whole.
        await deps.toolRunner.runAgain(item.serverId, item.title, tracker.callArguments(item.key) ?? knownArguments(item.argsSummary));
      }),
    ),
    vscode.commands.registerCommand(
      Commands.cancelTask,
      guard(vscode.l10n.t('Cancel task'), async (arg: TaskArg) => {
        const item = await pickTaskToChange(arg, vscode.l10n.t('Cancel Task'), (i) => isCancellable(i.state), vscode.l10n.t('Cancel which task?'), vscode.l10n.t('no task can be cancelled.'));
        if (item) await cancelItem(item);
      }),
    ),
    vscode.commands.registerCommand(
      Commands.retrieveResult,
      guard(vscode.l10n.t('Retrieve result'), async (arg: TaskArg) => {
        const item = await pickTask(arg, (i) => isFinished(i.state), vscode.l10n.t('Open the result of which task?'), vscode.l10n.t('no task has finished yet.'));
        if (!item) return;
        // The document opens at once (its header, "Loading the result…"); the result follows when fetched.
        const retrieved = await deps.documents.open(item, deps.actions.retrieve(item));
        if (retrieved.kind === 'missing') void showInfo(vscode.l10n.t('MCP Tasks: {0}', retrieved.reason));
      }),
    ),
    vscode.commands.registerCommand(
      Commands.respond,
      guard(vscode.l10n.t('Respond'), async (arg: TaskArg) => {
        const id = typeof arg === 'string' ? arg : arg?.kind === 'task' ? arg.id : await pickWaitingPrompt(prompts, view);
        if (!id) return;
        const target = respondTarget(view, id);
        if (prompts.respond(target)) return;
        // Answering a request that went away (answered elsewhere, withdrawn, its call ended) says so.
        const item = view.item(target);
        if (item?.direction === 'sent' && item.state === 'inputRequired') {
          void showInfo(vscode.l10n.t('MCP Tasks: "{0}" waits for input, but "{1}" has not sent its request yet.', item.title, item.serverName));
        } else {
          void showInfo(vscode.l10n.t('MCP Tasks: "{0}" is not waiting for you any more (answered, withdrawn, or the call it was asked for ended).', item?.title ?? vscode.l10n.t('this request')));
        }
      }),
    ),
    vscode.commands.registerCommand(Commands.copyTaskId, async (arg: TaskArg) => {
      const item = await pickTask(arg, () => true, vscode.l10n.t('Copy the id of which task?'), vscode.l10n.t('there are no tasks.'));
      if (item) await vscode.env.clipboard.writeText(item.taskId);
    }),
    vscode.commands.registerCommand(
      Commands.removeTask,
      guard(vscode.l10n.t('Remove task'), async (arg: TaskArg) => {
        const item = await pickTaskToChange(arg, vscode.l10n.t('Remove Task'), (i) => isFinished(i.state), vscode.l10n.t('Remove which task from the list?'), vscode.l10n.t('no finished task to remove.'));
        if (item) deps.actions.remove(item);
      }),
    ),
    vscode.commands.registerCommand(
      Commands.dismissTask,
      guard(vscode.l10n.t('Dismiss task'), async (arg: TaskArg) => {
        const item = await pickTaskToChange(arg, vscode.l10n.t('Dismiss Task'), (i) => isDismissable(i.state), vscode.l10n.t('Dismiss which orphaned task?'), vscode.l10n.t('no orphaned task to dismiss.'));
        if (item) deps.actions.remove(item);
      }),
    ),
    vscode.commands.registerCommand(
      Commands.clearFinished,
      guard(vscode.l10n.t('Clear finished'), async () => {
        // Their results go with them and there is no undo: asked first (one click once removed 17 rows unasked).
        const n = view.items().filter((i) => isFinished(i.state) && i.kind !== 'request').length;
        if (n === 0) return;
        const clear = vscode.l10n.t('Clear');
        const choice = await Promise.resolve(
          showWarning(
            n === 1 ? vscode.l10n.t('Remove 1 finished task from the MCP Tasks list?') : vscode.l10n.t('Remove {0} finished tasks from the MCP Tasks list?', n),
            { modal: true, detail: vscode.l10n.t('Their results are forgotten with them; this cannot be undone. A server may still list its own tasks on Refresh.') },
            clear,
          ),
        );
        if (choice === clear) deps.actions.clearFinished(view.items());
      }),
    ),
    vscode.commands.registerCommand(
      Commands.revokeSamplingConsent,
      guard(vscode.l10n.t('Revoke consent'), async () => {
        const records = consents.list();
        if (records.length === 0) {
          void showInfo(vscode.l10n.t('MCP Tasks: nothing is remembered: no "always allow" and no approved server start.'));
          return;
        }
        type Item = vscode.QuickPickItem & { record: ConsentRecord };
        const picks = await vscode.window.showQuickPick<Item>(
          records.map((r) => ({ label: plainLabel(consentLabel(r)), description: plainLabel(r.sourceFile), detail: vscode.l10n.t('since {0}', new Date(r.grantedAt).toLocaleString()), record: r })),
          { canPickMany: true, placeHolder: vscode.l10n.t('Revoke which? (a revoked start asks again next time)') },
        );
        if (picks?.length) await consents.revoke(picks.map((p) => p.record));
      }),
    ),
    vscode.commands.registerCommand(
      Commands.clearStoredInputs,
      guard(vscode.l10n.t('Clear stored inputs'), async () => {
        const n = await deps.inputs.clear();
        void showInfo(
          n ? (n === 1 ? vscode.l10n.t('MCP Tasks: forgot 1 stored input value; servers ask again on their next start.') : vscode.l10n.t('MCP Tasks: forgot {0} stored input values; servers ask again on their next start.', n)) : vscode.l10n.t('MCP Tasks: no input value was stored.'),
        );
      }),
    ),
    vscode.commands.registerCommand(Commands.focusView, () => vscode.commands.executeCommand(`${Views.tasks}.focus`)),
  ];
}

async function openConfig(config: ServerConfigSource): Promise<void> {
  // A file with a problem first: that is usually why the user is here.
  const broken = config.problems.find((p) => p.file.endsWith('.json'));
  if (broken) {
    await openAt(broken.file, broken.position);
    return;
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    await vscode.commands.executeCommand('workbench.action.openSettingsJson');
    return;
  }
  const folder = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Open the mcp.json of which folder?') });
  if (!folder) return;
  const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('{\n  "servers": {}\n}\n'));
  }
  await vscode.window.showTextDocument(uri);
}

async function addServer(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void showInfo(vscode.l10n.t('MCP Tasks: open a folder first; servers are added to its .vscode/mcp.json.'));
    return;
  }
  const type = await vscode.window.showQuickPick(
    [
      { label: 'stdio', description: vscode.l10n.t('a command that runs the server'), type: 'stdio' as const },
      { label: 'http', description: vscode.l10n.t('a Streamable HTTP URL'), type: 'http' as const },
    ],
    { placeHolder: vscode.l10n.t('How is the server reached?') },
  );
  if (!type) return;
  const target = await vscode.window.showInputBox({
    prompt: type.type === 'stdio' ? vscode.l10n.t('Command line (e.g. node server.js)') : vscode.l10n.t('URL (e.g. http://127.0.0.1:3000/mcp)'),
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Required')),
  });
  if (!target) return;
  const name = await vscode.window.showInputBox({ prompt: vscode.l10n.t('Server name'), value: 'my-server', validateInput: (v) => (/^[\w.-]+$/.test(v) ? undefined : vscode.l10n.t('Letters, digits, . _ - only')) });
  if (!name) return;
  const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
  // Bounded (core/config/boundedRead.ts); a file that is there but refused or unreadable is left as it is, not replaced.
  const read = uri.scheme === 'file' ? await readConfigFile(uri.fsPath) : ({ kind: 'missing' } as const);
  if (read.kind === 'refused' || read.kind === 'unreadable') {
    void showError(vscode.l10n.t('MCP Tasks: cannot add "{0}" to {1}: {2}', name, uri.fsPath, read.kind === 'refused' ? refusalWords(read.refusal) : read.message));
    return;
  }
  const text = read.kind === 'text' ? read.text : '';
  const parts = target.trim().split(/\s+/);
  const server = type.type === 'stdio' ? { type: 'stdio', command: parts[0], args: parts.slice(1) } : { type: 'http', url: target.trim() };
  let updated: string;
  try {
    updated = addServerToConfigText(text, name, server);
  } catch (e) {
    void showError(vscode.l10n.t('MCP Tasks: cannot add "{0}" to {1}: {2}', name, uri.fsPath, errorMessage(e)));
    return;
  }
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(updated.endsWith('\n') ? updated : `${updated}\n`));
  await vscode.window.showTextDocument(uri);
}

/** Keeps the `when`-clause context keys in step with the view. */
export function updateContextKeys(view: TaskView, registry: ServerRegistry, prompts: PromptQueue): void {
  const waiting = respondables(prompts, view);
  const items = view.items();
  void vscode.commands.executeCommand('setContext', ContextKeys.hasServers, registry.connections.length > 0);
  void vscode.commands.executeCommand('setContext', ContextKeys.hasRunningServer, registry.connections.some((c) => c.state.kind === 'running'));
  void vscode.commands.executeCommand('setContext', ContextKeys.hasServerNeedingSignIn, registry.connections.some((c) => c.state.kind === 'needs-sign-in'));
  void vscode.commands.executeCommand('setContext', ContextKeys.hasHttpServer, registry.connections.some((c) => c.definition.transport.type === 'http'));
  void vscode.commands.executeCommand('setContext', ContextKeys.hasTasks, items.length > 0);
  void vscode.commands.executeCommand('setContext', ContextKeys.hasCancellable, items.some((i) => isCancellable(i.state)));
  void vscode.commands.executeCommand('setContext', ContextKeys.hasFinished, items.some((i) => isFinished(i.state)));
  void vscode.commands.executeCommand('setContext', ContextKeys.hasOrphaned, items.some((i) => isDismissable(i.state)));
  void vscode.commands.executeCommand('setContext', ContextKeys.hasWaiting, waiting.requests.length + waiting.drafts.length > 0);
}
