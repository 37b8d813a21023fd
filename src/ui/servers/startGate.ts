import * as vscode from 'vscode';
import { showWarning } from '../adapters/notify.js';
import type { ServerDefinition } from '../../core/config/config.js';
import type { ConsentStore } from '../../core/config/consent.js';
import { DefinitionGate, type ApprovalRequest } from '../../core/config/gate.js';
import type { LaunchContext } from '../../core/config/trust.js';
import { plainLabel, quoteText } from '../../core/base/quote.js';

/** User setting (application scope: a workspace cannot set it). */
export const FIRST_START_SETTING = 'workspaceServers.firstStart';

/**
 * The UI side of the gate every connect passes ({@link DefinitionGate}, src/core/config/gate.ts):
 * reads workspace trust and the user-only setting, asks the user (a modal dialog showing every
 * value that changes what runs) before the first start of a workspace definition — one dialog for
 * all the definitions due together, with Start All or a choice per definition. That an
 * untrusted workspace's servers were not started is said by a status-bar item while it lasts
 * (trustSignal.ts), not by a notification that would outlive it.
 */
export class StartGate implements vscode.Disposable {
  /** The registry's gate (every connection asks it before each connect). */
  readonly gate: DefinitionGate;
  private _firstStart = firstStartSetting();
  private readonly _onDidChangeFirstStart = new vscode.EventEmitter<void>();
  /**
   * The user's own firstStart value changed (a workspace's value never counts): the gate's answer
   * for every workspace server may have changed with it, so the registry re-evaluates them all.
   */
  readonly onDidChangeFirstStart = this._onDidChangeFirstStart.event;
  private readonly _configSubscription: vscode.Disposable;

  constructor(consents: ConsentStore, pathsFor: (def: ServerDefinition) => Pick<LaunchContext, 'workspaceFolder' | 'userHome'>) {
    this.gate = new DefinitionGate({
      workspaceTrusted: () => vscode.workspace.isTrusted,
      firstStart: firstStartSetting,
      consents,
      ask: askToStart,
      pathsFor,
    });
    this._configSubscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(`mcpTasks.${FIRST_START_SETTING}`)) return;
      const now = firstStartSetting();
      if (now === this._firstStart) return;
      this._firstStart = now;
      this._onDidChangeFirstStart.fire();
    });
  }

  dispose(): void {
    this._configSubscription.dispose();
    this._onDidChangeFirstStart.dispose();
    this.gate.dispose();
  }
}

/** The user's own value of the setting (never a workspace's). */
function firstStartSetting(): 'ask' | 'allow' {
  const v = vscode.workspace.getConfiguration('mcpTasks').inspect<unknown>(FIRST_START_SETTING)?.globalValue;
  return v === 'allow' ? 'allow' : 'ask';
}

/** One question for every definition due now: a dialog for one; for several, one dialog (Start All, or Choose… each in a list). */
export async function askToStart(requests: readonly ApprovalRequest[]): Promise<readonly boolean[]> {
  if (requests.length === 1) return [await askToStartOne(requests[0]!)];
  const all = vscode.l10n.t('Start All');
  const choose = vscode.l10n.t('Choose…');
  // Plain text, every workspace string quoted (launchSummary.ts): none can start a line of its own.
  const detail = [
    ...requests.flatMap(({ def, launch }) => [
      vscode.l10n.t('{0}, defined in {1}:', quoteText(def.name), def.source.file),
      `  ${launch.kind === 'command' ? vscode.l10n.t('runs this program on your machine:') : vscode.l10n.t('connects to:')} ${launch.text}`,
      ...launch.details.map((d) => `  ${d}`),
      '',
    ]),
    vscode.l10n.t('Each definition is approved on its own, and asked about again whenever it or its environment file changes. Revoke with "MCP Tasks: Revoke Remembered Consent…".'),
  ].join('\n');
  const choice = await showWarning(vscode.l10n.t('Start the {0} MCP servers defined by this workspace?', requests.length), { modal: true, detail }, all, choose);
  if (choice === all) return requests.map(() => true);
  if (choice !== choose) return requests.map(() => false);
  const picked = await vscode.window.showQuickPick(
    requests.map(({ def, launch }, index) => ({ label: plainLabel(def.name), description: plainLabel(launch.text), detail: plainLabel(launch.details.join(' · ')), index })),
    { canPickMany: true, ignoreFocusOut: true, title: vscode.l10n.t('Start which MCP servers of this workspace?'), placeHolder: vscode.l10n.t('Check the servers to start; the others are not started') },
  );
  const chosen = new Set(picked?.map((p) => p.index) ?? []);
  return requests.map((_, i) => chosen.has(i));
}

async function askToStartOne({ def, launch }: ApprovalRequest): Promise<boolean> {
  const start = vscode.l10n.t('Start Server');
  // A modal dialog renders plain text: the workspace's strings cannot become links here, and
  // they are quoted (trust.ts, launchSummary.ts), so none can start a line of its own.
  const detail = [
    launch.kind === 'command' ? vscode.l10n.t('It runs this program on your machine:') : vscode.l10n.t('It connects to:'),
    launch.text,
    ...launch.details,
    '',
    vscode.l10n.t('Defined in {0}.', def.source.file),
    vscode.l10n.t('You are asked once for each definition, and again whenever it or its environment file changes. Revoke with "MCP Tasks: Revoke Remembered Consent…".'),
  ].join('\n');
  const choice = await showWarning(vscode.l10n.t('Start the MCP server {0} defined by this workspace?', quoteText(def.name)), { modal: true, detail }, start);
  return choice === start;
}
