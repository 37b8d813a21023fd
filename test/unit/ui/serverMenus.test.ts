/**
 * Which actions a server's row and the palette offer (package.json `when` clauses against the
 * real tree provider's `contextValue`, `vscode` stubbed): Sign In and Sign Out only where OAuth
 * can apply — Sign Out never on a stdio server, Sign In in the palette only while a server needs
 * it — while Start, Stop, Run Tool… stay where they were.
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectionState } from '../../../src/core/connection/connection.js';
import type { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { ContextKeys } from '../../../src/ui/commands/commandIds.js';
import { TasksTreeProvider } from '../../../src/ui/view/tasksTree.js';
import { definition } from '../../helpers/fakeTaskServer.js';
import { checkLeaks } from '../../helpers/leaks.js';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { menus: Record<string, Array<{ command: string; when?: string }>> };
};

/** Whether a `view/item/context` entry of `command` shows on a server row with this `contextValue` (its `viewItem` test only). */
function offered(command: string, contextValue: string): boolean {
  const entries = manifest.contributes.menus['view/item/context']!.filter((m) => m.command === command);
  return entries.some((m) => {
    const when = m.when ?? '';
    const eq = /viewItem == ([\w.-]+)/.exec(when);
    if (eq && eq[1] !== contextValue) return false;
    const re = /viewItem =~ \/(.+?)\/(?: |$)/.exec(when);
    if (re && !new RegExp(re[1]!).test(contextValue)) return false;
    if (/viewItem != mcpServer\.unconfigured/.test(when) && contextValue === 'mcpServer.unconfigured') return false;
    return !!(eq || re);
  });
}

function serverRow(transport: 'stdio' | 'http', state: ConnectionState): string {
  const def = definition('srv');
  const connection = {
    id: 'srv',
    name: 'srv',
    definition: transport === 'http' ? { ...def, transport: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} } } : def,
    state,
  };
  const noEvent = () => ({ dispose() {} });
  const registry = { connections: [connection], get: () => connection, onDidChangeState: noEvent, onDidChangeConnections: noEvent } as unknown as ServerRegistry;
  const ledger = new TaskLedger();
  const tracker = new TaskTracker({ connectionFor: () => undefined });
  const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
  const provider = new TasksTreeProvider(registry, view);
  try {
    return String(provider.getTreeItem({ kind: 'server', serverId: 'srv' }).contextValue);
  } finally {
    provider.dispose();
    view.dispose();
    tracker.dispose();
    ledger.dispose();
  }
}

describe('a server row offers Sign In / Sign Out only where OAuth can apply', () => {
  checkLeaks();

  const running: ConnectionState = { kind: 'running', capabilities: {} };

  test('Sign Out: on an http server, never on a stdio one', () => {
    assert.equal(offered('mcpTasks.signOut', serverRow('stdio', running)), false, 'a stdio server has no sign-in');
    assert.equal(offered('mcpTasks.signOut', serverRow('stdio', { kind: 'error', message: 'x' })), false);
    assert.equal(offered('mcpTasks.signOut', serverRow('http', running)), true);
    assert.equal(offered('mcpTasks.signIn', serverRow('http', { kind: 'needs-sign-in', authorizationServer: 'https://as.example' })), true);
    assert.equal(offered('mcpTasks.signIn', serverRow('http', running)), false);
  });

  test('the other server actions are where they were, on both transports', () => {
    for (const t of ['stdio', 'http'] as const) {
      assert.equal(offered('mcpTasks.stopServer', serverRow(t, running)), true, t);
      assert.equal(offered('mcpTasks.runTool', serverRow(t, running)), true, t);
      assert.equal(offered('mcpTasks.startServer', serverRow(t, running)), false, t);
      assert.equal(offered('mcpTasks.startServer', serverRow(t, { kind: 'blocked', reason: 'r' })), true, t);
      assert.equal(offered('mcpTasks.restartServer', serverRow(t, running)), true, t);
      assert.equal(offered('mcpTasks.showLog', serverRow(t, { kind: 'stopped' })), true, t);
    }
  });

  test('the palette: Sign In while a server needs it, Sign Out while an http server is configured', () => {
    const palette = new Map(manifest.contributes.menus.commandPalette!.map((m) => [m.command, m.when]));
    assert.equal(palette.get('mcpTasks.signIn'), ContextKeys.hasServerNeedingSignIn);
    assert.equal(palette.get('mcpTasks.signOut'), ContextKeys.hasHttpServer);
  });
});
