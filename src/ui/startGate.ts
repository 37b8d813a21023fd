import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { showWarning } from './notify.js';
import type { ServerDefinition } from '../core/config/config.js';
import type { ConsentStore } from '../core/config/consent.js';
import { DefinitionGate } from '../core/config/gate.js';
import type { LaunchContext, LaunchSummary } from '../core/config/trust.js';
import { quoteText } from '../core/base/quote.js';

/** User setting (application scope: a workspace cannot set it). */
export const FIRST_START_SETTING = 'workspaceServers.firstStart';

/**
 * The UI side of the gate every connect passes ({@link DefinitionGate}, src/core/config/gate.ts):
 * reads workspace trust and the user-only setting, asks the user (a modal dialog showing every
 * value that changes what runs) before the first start of a workspace definition. That an
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
      ask: (def, launch) => this._ask(def, launch),
      pathsFor,
      readText: (path) => readFile(path, 'utf8'),
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

  private async _ask(def: ServerDefinition, launch: LaunchSummary): Promise<boolean> {
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
}

/** The user's own value of the setting (never a workspace's). */
function firstStartSetting(): 'ask' | 'allow' {
  const v = vscode.workspace.getConfiguration('mcpTasks').inspect<unknown>(FIRST_START_SETTING)?.globalValue;
  return v === 'allow' ? 'allow' : 'ask';
}
