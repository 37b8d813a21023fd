/**
 * What the user sees when an authorization server refuses the client credentials of a server
 * (mcp.json's "oauth" block): the tree shows "credentials refused", and one notification per
 * episode names the server and the authorization server, with the ways to fix it — open the file
 * that defines the server, or enter the `${input:…}` values of its credentials again (they are
 * forgotten, and the server restarts and asks for them).
 */
import * as vscode from 'vscode';
import type { InputDefinition } from '../../core/config/config.js';
import type { ServerConnection } from '../../core/connection/connection.js';
import type { ServerRegistry } from '../../core/connection/registry.js';
import type { InputValueStore } from '../prompts/inputStore.js';
import { failed, showError, showInfo } from '../adapters/notify.js';
import { openServerDefinition } from './serverErrors.js';


export interface CredentialsRejectedDeps {
  readonly registry: ServerRegistry;
  readonly inputs: InputValueStore;
}

/** The inputs (`${input:id}`) the credentials of a server's "oauth" block use. */
export function credentialInputs(c: Pick<ServerConnection, 'definition'>): InputDefinition[] {
  const t = c.definition.transport;
  if (t.type !== 'http' || !t.oauth) return [];
  const ids = new Set([...JSON.stringify(t.oauth).matchAll(/\$\{input:([^}]+)\}/g)].map((m) => m[1]!));
  return c.definition.inputs.filter((i) => ids.has(i.id));
}

export function registerCredentialsRejected(deps: CredentialsRejectedDeps): vscode.Disposable {
  const notified = new WeakSet<ServerConnection>();
  const sub = deps.registry.onDidChangeState(({ connection: c, state }) => {
    if (state.kind === 'running' || state.kind === 'stopped') notified.delete(c);
    if (state.kind !== 'credentials-rejected' || notified.has(c)) return;
    notified.add(c);
    const [enterAgain, retry, openMcpJson, openSettings] = [vscode.l10n.t('Enter Again'), vscode.l10n.t('Retry'), vscode.l10n.t('Open mcp.json'), vscode.l10n.t('Open Settings')];
    const open = c.definition.source.kind === 'workspace' ? openMcpJson : openSettings;
    const inputs = credentialInputs(c);
    const actions = inputs.length ? [enterAgain, open, retry] : [open, retry];
    void showError(vscode.l10n.t('MCP Tasks: {0}.', state.message), ...actions).then(async (choice) => {
      if (!choice) return;
      if (!deps.registry.get(c.id)) return void showInfo(vscode.l10n.t('MCP Tasks: "{0}" is no longer configured.', c.name));
      if (choice === openMcpJson) return openServerDefinition(c);
      if (choice === openSettings) return void (await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpTasks.servers'));
      if (choice === enterAgain) for (const input of inputs) await deps.inputs.forget(c.definition, input);
      notified.delete(c);
      await deps.registry.restart(c.id).catch(() => undefined);
    }).then(undefined, failed(vscode.l10n.t('The action on "{0}"', c.name)));
  });
  return { dispose: () => sub.dispose() };
}
