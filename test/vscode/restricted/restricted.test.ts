// Restricted Mode: a folder whose .vscode/mcp.json defines a stdio
// server (that would write a marker file) and an http server (whose Authorization header would
// carry ${env:MCP_TASKS_E2E_PLANTED} to a recording server), and whose .vscode/settings.json
// defines the same two kinds in mcpTasks.servers, is opened untrusted. Nothing may be spawned,
// no request may leave, and the settings-defined servers must not even be configured.
// Written by scripts/vscode-offline.mjs (runRestricted), which passes MCP_TASKS_E2E_RESTRICTED.
import * as assert from 'node:assert/strict';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import { extensionApi, until } from '../util';
import { McpConnection } from '../../../src/core/connection/connection';
import type { HostResponders } from '../../../src/core/receiver/wire/responders';
import { TaskLedger } from '../../../src/core/receiver/ledger';

interface Fixture {
  readonly markers: string;
  readonly requestLog: string;
  readonly secret: string;
}

const fixture: Fixture | undefined = process.env.MCP_TASKS_E2E_RESTRICTED ? (JSON.parse(process.env.MCP_TASKS_E2E_RESTRICTED) as Fixture) : undefined;

/** Recorded requests (one JSON line each). */
function requests(f: Fixture): Array<{ url: string; headers: Record<string, string> }> {
  return fs
    .readFileSync(f.requestLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { url: string; headers: Record<string, string> });
}

/** Resolves when `check()` holds, re-checking on every change in `dir`; fails after `ms`. */
function untilFiles(dir: string, check: () => boolean, what: string, ms = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = fs.watch(dir, () => {
      if (check()) done();
    });
    const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}`)), ms);
    function done(err?: Error) {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve();
    }
    if (check()) done();
  });
}

const WORKSPACE_SERVERS = ['ws-http', 'ws-stdio'];

suite('Restricted Mode: a workspace cannot run or contact its servers', () => {
  let api: McpTasksApi;

  suiteSetup(async function () {
    if (!fixture) this.skip(); // only the offline runner prepares the folder
    ({ api } = await extensionApi());
  });

  test('the folder is open in Restricted Mode and VS Code reads its settings.json (the fixture is effective)', () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner must open the folder untrusted');
    // A harmless setting next to mcpTasks.servers in the same file does apply.
    assert.equal(vscode.workspace.getConfiguration('editor').get('tabSize'), 3);
  });

  test('limits and consent settings the workspace sets do not apply (they are the user\'s alone)', () => {
    const cfg = vscode.workspace.getConfiguration('mcpTasks');
    assert.equal(cfg.get('requestor.ttlMs'), 30 * 60 * 1000, 'the default, not the workspace\'s 1234567');
    assert.equal(cfg.get('receiver.operationsPerSecond'), cfg.inspect('receiver.operationsPerSecond')?.defaultValue);
    assert.deepEqual(cfg.get('sampling.modelByServer'), {});
  });

  test('servers from .vscode/mcp.json (stdio, and http with ${env:} headers) are blocked: nothing spawned, no request sent; servers in workspace settings are ignored', async function () {
    this.timeout(60_000);
    const f = fixture!;
    const byName = (n: string) => api.registry.connections.find((c) => c.name === n);
    await until(api, () => WORKSPACE_SERVERS.every((n) => byName(n)?.state.kind === 'blocked'), 'both workspace servers to be blocked');
    for (const n of WORKSPACE_SERVERS) {
      const state = byName(n)!.state;
      assert.ok(state.kind === 'blocked' && /not trusted/.test(state.reason), `${n}: ${JSON.stringify(state)}`);
    }

    // mcpTasks.servers from the workspace's settings.json is not a server at all.
    assert.deepEqual(api.config.definitions.map((d) => `${d.source.kind}:${d.name}`).sort(), ['workspace:ws-http', 'workspace:ws-stdio']);
    // VS Code itself drops the value (the setting is application-scoped and a restricted
    // configuration); the extension reads only the user's value besides (unit-tested).
    assert.equal(vscode.workspace.getConfiguration('mcpTasks').inspect<unknown>('servers')?.workspaceValue, undefined);
    assert.equal(vscode.workspace.getConfiguration('mcpTasks').get<unknown>('workspaceServers.firstStart'), 'ask', 'a workspace cannot set firstStart either');

    // Asking explicitly (the palette's Start Server, Sign Out and Sign In — any extension can run
    // them with the ids the API hands out) does not get past the gate either.
    for (const n of WORKSPACE_SERVERS) await vscode.commands.executeCommand('mcpTasks.startServer', byName(n)!.id);
    await vscode.commands.executeCommand('mcpTasks.signOut', byName('ws-http')!.id);
    await vscode.commands.executeCommand('mcpTasks.signIn', byName('ws-http')!.id);
    for (const n of WORKSPACE_SERVERS) assert.equal(byName(n)!.state.kind, 'blocked', `${n} after Start Server, Sign Out and Sign In`);

    assert.deepEqual(fs.readdirSync(f.markers), [], 'no server program was spawned');
    assert.deepEqual(requests(f), [], 'no request reached the recording server');
  });

  test('control: the same fixtures started past the gate do leave their traces (so the test above can fail)', async function () {
    this.timeout(60_000);
    const f = fixture!;
    const byName = (n: string) => api.registry.connections.find((c) => c.name === n)!;
    // A connection without the gate (every connection of the extension asks it before each
    // connect) — what a regression would do.
    const ledger = new TaskLedger();
    const responders: HostResponders = { sampling: async () => assert.fail('no sampling'), elicitation: async () => ({ action: 'decline' }) };
    const ungated = (n: string) => new McpConnection(byName(n).definition, { sides: hostSides(ledger, responders), variables: api.config.variablesFor(byName(n).definition) });
    const stdio = ungated('ws-stdio');
    const http = ungated('ws-http');
    await stdio.start().catch(() => undefined);
    await untilFiles(f.markers, () => fs.existsSync(path.join(f.markers, 'ws-stdio')), 'the stdio fixture to write its marker');
    await http.start().catch(() => undefined);
    await untilFiles(path.dirname(f.requestLog), () => requests(f).some((r) => r.url === '/ws-http'), 'the http fixture to be contacted');
    const sent = requests(f).find((r) => r.url === '/ws-http')!;
    assert.equal(sent.headers.authorization, `Bearer ${f.secret}`, 'the fixture would have sent the planted environment value');
    for (const c of [stdio, http]) c.dispose();
    ledger.dispose();
  });
});
