// First start of a server defined by a (trusted) workspace: the start asks
// (a modal dialog), an unanswered question leaves it blocked, an approval is remembered for exactly
// that definition, and the approval is listed and revoked from the palette (which stops the server);
// switching the setting applies at once (to "ask": unapproved servers stop; to "allow": they start).
// The runner's user settings skip the question (firstStart "allow") for the rest of the suite;
// this test switches it to "ask" and back. The workbench's smoke-test driver (which the runner
// needs to load tests) dismisses every modal dialog unseen ("Dialog requested during smoke test"),
// exactly like the user pressing Cancel: so the dialog's text is not read here (its content is
// unit-tested: describeLaunch), and approving goes through the consent store.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ServerDefinition } from '../../../src/core/config/config';
import type { McpTasksApi } from '../../../src/extension';
import { uiBridgeOrSkip } from '../bridge';
import { extensionApi, until } from '../util';

const NAME = 'demo-approve';
let api: McpTasksApi;

suite('First start of a workspace server (trusted workspace)', () => {
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');

  suiteSetup(async function () {
    this.timeout(60_000);
    ({ api } = await extensionApi());
  });

  suiteTeardown(async function () {
    this.timeout(60_000);
    if (!api) return;
    await settings().update('workspaceServers.firstStart', 'allow', vscode.ConfigurationTarget.Global);
    await api.registry.setDefinitions(api.config.definitions);
    await api.consents.revoke(api.consents.list().filter((r) => r.serverName === NAME));
  });

  test('a dismissed question leaves the server blocked and remembers nothing; an approval starts it without asking again; revoked from the palette, it asks again', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const demo = api.config.definitions.find((d) => d.name === 'demo' && d.source.kind === 'workspace');
    assert.ok(demo, 'the demo workspace defines "demo" in its .vscode/mcp.json');
    assert.equal(api.registry.get('demo')?.state.kind, 'running', 'demo runs under firstStart "allow", never approved');
    // "ask" applies now: the workspace's servers that run without an approval stop, with the reason.
    await settings().update('workspaceServers.firstStart', 'ask', vscode.ConfigurationTarget.Global);
    assert.equal(settings().inspect('workspaceServers.firstStart')?.globalValue, 'ask');
    await until(api, () => api.registry.get('demo')?.state.kind === 'blocked', 'demo to stop once firstStart is "ask"');
    assert.match((api.registry.get('demo')!.state as { reason: string }).reason, /firstStart was "allow"/);
    const clone: ServerDefinition = { ...demo, id: NAME, name: NAME };
    const blockedUnapproved = () => {
      const s = api.registry.get(NAME)?.state;
      return s?.kind === 'blocked' && /did not approve/.test(s.reason);
    };

    // Configured: asked (and, here, dismissed): blocked, nothing remembered, nothing started.
    await api.registry.setDefinitions([...api.config.definitions, clone]);
    assert.ok(blockedUnapproved(), JSON.stringify(api.registry.get(NAME)?.state));
    assert.deepEqual(api.consents.list('firstStart'), []);

    // Approved (what "Start Server" in the dialog records): starts, and a restart asks nothing.
    await api.consents.grant('firstStart', clone);
    await vscode.commands.executeCommand('mcpTasks.startServer', NAME);
    await until(api, () => api.registry.get(NAME)?.state.kind === 'running', `${NAME} to run`);
    await api.registry.restart(NAME);
    assert.equal(api.registry.get(NAME)!.state.kind, 'running');

    // The same approval does not cover an edited definition (same file, same name).
    const edited: ServerDefinition = { ...clone, transport: { ...clone.transport, args: [...(clone.transport.type === 'stdio' ? clone.transport.args : []), '--edited'] } as ServerDefinition['transport'] };
    await api.registry.setDefinitions([...api.config.definitions, edited]);
    assert.ok(blockedUnapproved(), `an edited definition asks again: ${JSON.stringify(api.registry.get(NAME)?.state)}`);
    await api.registry.setDefinitions([...api.config.definitions, clone]);
    await until(api, () => api.registry.get(NAME)?.state.kind === 'running', `${NAME} (approved) to run again`);

    // Listed and revoked from the palette.
    await ui.assert({ name: 'consent-list', actions: [{ runCommand: 'MCP Tasks: Revoke Remembered Consent…' }], expect: { quickInputRow: `Approved to start: "${NAME}"` }, screenshot: true });
    await ui.assert({ name: 'consent-check', actions: [{ press: ['ArrowDown', 'Space'] }], expect: { quickInputChecked: [NAME] } });
    await ui.assert({ name: 'consent-revoke', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => api.consents.list('firstStart').length === 0, 'the approval to be revoked');
    // Revoking stops the running server.
    await until(api, () => api.registry.get(NAME)?.state.kind === 'blocked', `${NAME} to be stopped by the revoke`);
    assert.match((api.registry.get(NAME)!.state as { reason: string }).reason, /was revoked/);

    // Revoked: the next start asks again (dismissed here: blocked).
    await api.registry.restart(NAME);
    assert.ok(blockedUnapproved(), JSON.stringify(api.registry.get(NAME)?.state));

    // "allow" again: what waited for an approval starts, as the rest of the suite expects.
    await settings().update('workspaceServers.firstStart', 'allow', vscode.ConfigurationTarget.Global);
    await until(api, () => api.registry.get('demo')?.state.kind === 'running' && api.registry.get(NAME)?.state.kind === 'running', 'demo and the clone to run under "allow"', 60_000);
  });
});
