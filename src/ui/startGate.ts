import * as vscode from 'vscode';
import { showWarning } from './notify.js';
import type { ServerDefinition } from '../core/config/config.js';
import type { ConsentStore } from '../core/config/consent.js';
import { declinedReason, decideStart, type LaunchSummary } from '../core/config/trust.js';

/** User setting (application scope: a workspace cannot set it). */
export const FIRST_START_SETTING = 'workspaceServers.firstStart';

/**
 * The UI side of the start gate ({@link decideStart}): reads workspace trust and the user-only
 * setting, asks the user (a modal dialog showing the command line or URL) before the first start
 * of a workspace definition and remembers the approval by definition fingerprint.
 */
export class StartGate {
  /** Asks in progress, by fingerprint: two starts of one definition share one question. */
  private readonly _pending = new Map<string, Promise<true | string>>();
  /** One question at a time. */
  private _queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly _consents: ConsentStore) {}

  /** For the registry's `mayStart`: `true`, or the reason the server stays blocked. */
  mayStart(def: ServerDefinition): true | Promise<true | string> | string {
    const decision = decideStart(def, {
      workspaceTrusted: vscode.workspace.isTrusted,
      approved: (fp) => this._consents.has('firstStart', fp),
      firstStart: firstStartSetting(),
    });
    if (decision.kind === 'start') return true;
    // Blocked (not trusted): the status bar says so while it lasts (trustSignal.ts), no notification that outlives it.
    if (decision.kind === 'block') return decision.reason;
    const pending = this._pending.get(decision.fingerprint);
    if (pending) return pending;
    const asked = this._queue
      .then(() => this._ask(def, decision.launch))
      .finally(() => this._pending.delete(decision.fingerprint));
    this._queue = asked.catch(() => undefined);
    this._pending.set(decision.fingerprint, asked);
    return asked;
  }

  private async _ask(def: ServerDefinition, launch: LaunchSummary): Promise<true | string> {
    // Approved meanwhile (an earlier question about the same definition)?
    if (this._consents.has('firstStart', def)) return true;
    const start = vscode.l10n.t('Start Server');
    // A modal dialog renders plain text: the workspace's strings cannot become links here.
    const detail = [
      launch.kind === 'command' ? vscode.l10n.t('It runs this program on your machine:') : vscode.l10n.t('It connects to:'),
      launch.text,
      ...launch.details,
      '',
      vscode.l10n.t('Defined in {0}.', def.source.file),
      vscode.l10n.t('You are asked once for each definition, and again whenever it changes. Revoke with "MCP Tasks: Revoke Remembered Consent…".'),
    ].join('\n');
    // A dialog that cannot be shown (it throws) counts as "no".
    const choice = await Promise.resolve(showWarning(vscode.l10n.t('Start the MCP server "{0}" defined by this workspace?', def.name), { modal: true, detail }, start)).catch(
      () => undefined,
    );
    if (choice !== start) return declinedReason(def);
    await this._consents.grant('firstStart', def);
    return true;
  }
}

/** The user's own value of the setting (never a workspace's). */
function firstStartSetting(): 'ask' | 'allow' {
  const v = vscode.workspace.getConfiguration('mcpTasks').inspect<unknown>(FIRST_START_SETTING)?.globalValue;
  return v === 'allow' ? 'allow' : 'ask';
}
