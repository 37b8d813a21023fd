// A real third-party server: the official "everything" server (@modelcontextprotocol/server-everything,
// a devDependency, started from node_modules with no network) over stdio and Streamable HTTP.
// Its task tools are registered only for a client that declares task capabilities. The sampling
// is answered by the test's fake language model (test/vscode/fake-lm), the elicitations through
// the quick-input form; the received tasks nest under the tool call that caused them (the causal
// tree, core/view/causal.ts), count once in the status bar, and Cancel on the call offers to
// cancel the request it waits on.
import { openWithRespond } from '../respond';
import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { TaskViewItem } from '../../../src/core/view/taskView';
import { uiBridge, uiBridgeOrSkip } from '../bridge';
import { EXTENSION_ID, apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';
import type { BridgeExpect, UiBridge } from '../bridge';
import { everythingEntry, startEverythingHttp } from '../../helpers/everything';

const SERVERS = { stdio: 'everything-stdio', http: 'everything-http' } as const;
let api: McpTasksApi;
let http: { url: string; child: ChildProcess } | undefined;
let previousServers: unknown;

/** Starts a tool call without waiting for it (a plain call's promise settles only at its end). */
async function start(server: string, name: string, args: Record<string, unknown>): Promise<{ sent: () => TaskViewItem | undefined; children: () => TaskViewItem[] }> {
  const connection = api.registry.get(server)!;
  const { tools } = await connection.client.listTools();
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `${server} offers ${name} to a task-capable client: ${tools.map((t) => t.name).join(', ')}`);
  const before = new Set(api.view.items().map((i) => i.id));
  void api.tracker.callTool(connection, tool, args).catch(() => undefined);
  const sent = () => api.view.items().find((i) => i.direction === 'sent' && i.serverId === server && i.title === name && !before.has(i.id));
  await until(api, () => !!sent(), `${name} to be sent`);
  return { sent, children: () => api.view.items().filter((i) => i.parentId === sent()?.id) };
}

/**
 * "MCP Tasks: Respond…", then the request's row (filtered by its task id) and Enter. Types only
 * once the list has the keyboard focus: keys pressed before land in the tree.
 */
async function respond(ui: UiBridge, name: string, row: string, taskId: string, expect: BridgeExpect): Promise<void> {
  // With exactly one request waiting, Respond… opens it at once; else it asks which.
  const first = await ui.assert({ name: `${name}-respond`, actions: [{ runCommand: 'MCP Tasks: Respond…' }], expect: { quickInputVisible: true, quickInputFocused: true } });
  if (!first.state.quickInput.placeholder.includes('Respond to which request?')) {
    await ui.assert({ name: `${name}-respond-open`, expect });
    return;
  }
  await ui.assert({ name: `${name}-respond-pick`, expect: { quickInputRow: row, quickInputFocused: true } });
  await ui.assert({ name: `${name}-respond-open`, actions: [{ type: taskId }, { waitFor: { quickInputActiveRow: row } }, { press: 'Enter' }], expect });
}

function resultText(item: TaskViewItem | undefined): string {
  assert.ok(item?.outcome?.kind === 'result', `a tool result: ${JSON.stringify(item?.outcome)}`);
  return JSON.stringify(item.outcome.result);
}

/** The received request waiting under its call, once there. */
async function waitingChild(call: { children: () => TaskViewItem[] }, what: string): Promise<TaskViewItem> {
  await until(api, () => call.children().some((c) => c.state === 'waitingForUser'), `the ${what} to wait for the user under its tool call`, 60_000);
  return call.children().find((c) => c.state === 'waitingForUser')!;
}

// The servers are configured for this file's suites only (a root-level hook would run around every
// other file's tests too).
suite('The "everything" server (stdio and Streamable HTTP)', () => {
  suiteSetup(async function () {
    this.timeout(120_000);
    const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const entry = everythingEntry(root);
    http = await startEverythingHttp(entry, 60_000);
    const config = vscode.workspace.getConfiguration('mcpTasks');
    previousServers = config.inspect('servers')?.globalValue;
    await config.update(
      'servers',
      {
        ...(previousServers as Record<string, unknown> | undefined),
        [SERVERS.stdio]: { type: 'stdio', command: process.execPath, args: [entry, 'stdio'] },
        [SERVERS.http]: { type: 'http', url: http.url },
      },
      vscode.ConfigurationTarget.Global,
    );
    api = await apiWithServersRunning(SERVERS.stdio, SERVERS.http);
  });

  suiteTeardown(async function () {
    this.timeout(60_000);
    await vscode.workspace.getConfiguration('mcpTasks').update('servers', previousServers, vscode.ConfigurationTarget.Global);
    http?.child.kill();
  });

  for (const transport of ['stdio', 'http'] as const) {
    const server = SERVERS[transport];
    suite(`The "everything" server over ${transport}`, () => {
      setup(function () {
        if (!uiBridge()) this.skip();
      });
      cleanUpAfterEachTest(() => api);

      test(`${transport}: trigger-sampling-request-async nests its sampling task under the call, counts once, and completes with the fake model's answer`, async function () {
        this.timeout(180_000);
        const ui = uiBridgeOrSkip(this);
        const call = await start(server, 'trigger-sampling-request-async', { prompt: `six times seven over ${transport}`, maxTokens: 50 });
        const child = await waitingChild(call, 'sampling request');
        assert.equal(child.title, 'Sampling');
        // The call and the request it waits on count once (the status bar redraws on coalesced events).
        await until(api, () => api.statusBarText() === '$(sync~spin) 1 $(bell-dot) 1', `the status bar to count one unit, waiting (it reads ${JSON.stringify(api.statusBarText())})`);
        const tree = await ui.assert({
          name: `everything-${transport}-nested`,
          actions: [{ openView: true }],
          // A nested request shows no elapsed time: its label and state read as one.
          expect: { treeRows: [`${server} running`, 'trigger-sampling-request-async', 'Sampling waiting for you'] },
          screenshot: true,
        });
        const rows = tree.state.treeRows;
        const parentRow = rows.findIndex((r) => r.startsWith(server));
        const callRow = rows.findIndex((r, i) => i > parentRow && r.startsWith('trigger-sampling-request-async'));
        assert.match(rows[callRow + 1] ?? '', /^Sampling\b.*waiting for you/, `the request is the call's first child row: ${JSON.stringify(rows)}`);
        await respond(ui, `everything-${transport}-sampling`, 'Sampling', child.taskId, {
          quickInputTitle: `MCP server "${server}" wants to use a language model`,
          quickInputActiveRow: 'Allow once',
          quickInputFocused: true,
        });
        await ui.assert({ name: `everything-${transport}-sampling-allow`, actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
        await until(api, () => call.sent()?.state === 'completed' && !!call.sent()?.outcome, 'the tool call to complete', 60_000);
        assert.match(resultText(call.sent()), /COMPLETED[\s\S]*Echo: /);
        assert.equal(api.view.item(child.id)?.state, 'completed');
      });

      test(`${transport}: trigger-elicitation-request-async nests its elicitation task under the call; the form answers it`, async function () {
        this.timeout(180_000);
        const ui = uiBridgeOrSkip(this);
        const call = await start(server, 'trigger-elicitation-request-async', {});
        const child = await waitingChild(call, 'elicitation');
        assert.match(child.title, /^Elicitation: Please provide inputs/);
        const step = (n: number) => ({ quickInputTitle: `(${n}/4)`, quickInputFocused: true });
        await respond(ui, `everything-${transport}-elicit`, 'Please provide inputs', child.taskId, step(1));
        await ui.assert({ name: `everything-${transport}-elicit-name`, actions: [{ type: 'Ada' }, { press: 'Enter' }], expect: { ...step(2), quickInputRow: 'Blue' } });
        await ui.assert({ name: `everything-${transport}-elicit-colour`, actions: [{ type: 'Blue' }, { press: 'Enter' }], expect: { ...step(3), quickInputRow: 'Yes' } });
        await ui.assert({ name: `everything-${transport}-elicit-terms`, actions: [{ type: 'Yes' }, { press: 'Enter' }], expect: { ...step(4), quickInputActiveRow: 'Accept' } });
        await ui.assert({ name: `everything-${transport}-elicit-accept`, actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
        await until(api, () => call.sent()?.state === 'completed' && !!call.sent()?.outcome, 'the tool call to complete', 60_000);
        assert.match(resultText(call.sent()), /Ada/);
        assert.equal(api.view.item(child.id)?.state, 'completed');
        assert.equal(api.view.item(child.id)?.parentId, call.sent()!.id);
      });

      test(`${transport}: simulate-research-query runs as a task; its clarification (input_required, through tasks/result) is answered in the form`, async function () {
        this.timeout(180_000);
        const ui = uiBridgeOrSkip(this);
        const call = await start(server, 'simulate-research-query', { topic: 'python', ambiguous: true });
        assert.equal(call.sent()!.mode, 'task');
        // The request arrives through tasks/result and waits (mcpTasks.prompts.open "notify");
        // the call's input_required status comes with its next tasks/get (or status notification).
        await until(api, () => call.sent()?.state === 'inputRequired' && api.prompts.waitingIds.length > 0, 'the research task to read "input required" and its question to wait', 60_000);
        await openWithRespond(ui, `everything-${transport}-research`, { row: 'could have multiple interpretations', expect: { quickInputRow: 'Python programming language', quickInputFocused: true } });
        await ui.assert({ name: `everything-${transport}-research-pick`, actions: [{ type: 'Python programming' }, { press: 'Enter' }], expect: { quickInputActiveRow: 'Accept', quickInputFocused: true } });
        await ui.assert({ name: `everything-${transport}-research-accept`, actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
        await until(api, () => call.sent()?.state === 'completed' && !!call.sent()?.outcome, 'the research task to complete', 60_000);
        assert.match(resultText(call.sent()), /programming/);
      });

      test(`${transport}: cancelling simulate-research-query while its question waits leaves no request: badge, status bar and Respond… agree`, async function () {
        this.timeout(180_000);
        const ui = uiBridgeOrSkip(this);
        const topic = `cancelled research over ${transport}`;
        const call = await start(server, 'simulate-research-query', { topic, ambiguous: true });
        // Its question is a plain request (not a task) sent through tasks/result: nested under the task, waiting.
        await until(api, () => call.sent()?.state === 'inputRequired' && call.children().some((c) => c.state === 'waitingForUser'), 'the research task to wait for its question', 60_000);
        const question = call.children().find((c) => c.state === 'waitingForUser')!;
        assert.equal(question.mode, 'plain');
        assert.deepEqual(api.view.waitingForUser().map((i) => i.id), [question.id]);
        await until(api, () => api.statusBarText() === '$(sync~spin) 1 $(bell-dot) 1', `the status bar to count one waiting (it reads ${JSON.stringify(api.statusBarText())})`);
        const rows = await ui.assert({
          name: `everything-${transport}-research-waiting`,
          actions: [{ openView: true }],
          expect: { activityBarBadge: '1', treeRows: [`topic: ${topic}`, `Elicitation: The research query "${topic}"`, 'waiting for you'] },
          screenshot: true,
        });
        const at = rows.state.treeRows.findIndex((r) => r.includes(`topic: ${topic}`));
        assert.match(rows.state.treeRows[at + 1] ?? '', /^Elicitation: The research query .*waiting for you/, `the question is the task's first child row: ${JSON.stringify(rows.state.treeRows)}`);
        // Cancel the task (and its question) from the palette.
        await ui.assert({ name: `everything-${transport}-research-cancel-pick`, actions: [{ runCommand: 'MCP Tasks: Cancel Task…' }], expect: { quickInputRow: 'simulate-research-query', quickInputFocused: true } });
        await ui.assert({
          name: `everything-${transport}-research-cancel-offer`,
          actions: [{ type: call.sent()!.taskId }, { waitFor: { quickInputActiveRow: 'simulate-research-query' } }, { press: 'Enter' }],
          expect: { quickInputActiveRow: 'and its request', quickInputFocused: true },
        });
        await ui.assert({ name: `everything-${transport}-research-cancel-both`, actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
        await until(api, () => call.sent()?.state === 'cancelled', 'the research task to be cancelled', 60_000);
        // Nothing waits any more, wherever the user looks.
        await until(api, () => api.view.waitingForUser().length === 0 && api.prompts.waitingIds.length === 0 && api.view.item(question.id) === undefined, 'no request to remain');
        await until(api, () => api.statusBarText() === '', `the status bar to count nothing (it reads ${JSON.stringify(api.statusBarText())})`);
        await ui.assert({
          name: `everything-${transport}-research-cancelled`,
          actions: [{ openView: true }],
          expect: { activityBarBadge: '', treeRows: [`topic: ${topic}`], noNotification: `The research query "${topic}"` },
          screenshot: true,
        });
        const after = (await ui.state()).treeRows;
        assert.ok(!after.some((r) => r.includes(`The research query "${topic}"`)), `no row of the question left: ${JSON.stringify(after)}`);
        await vscode.commands.executeCommand('mcpTasks.respond');
        await ui.assert({ name: `everything-${transport}-research-respond-nothing`, expect: { notification: 'nothing is waiting for you' } });
        await vscode.commands.executeCommand('notifications.clearAll');
      });

      test(`${transport}: Cancel on the call offers to cancel the request it waits on; both end "cancelled" and nothing stays counted`, async function () {
        this.timeout(180_000);
        const ui = uiBridgeOrSkip(this);
        const call = await start(server, 'trigger-sampling-request-async', { prompt: `never answered over ${transport}` });
        const child = await waitingChild(call, 'sampling request');
        await ui.assert({ name: `everything-${transport}-cancel-pick`, actions: [{ runCommand: 'MCP Tasks: Cancel Task…' }], expect: { quickInputRow: 'trigger-sampling-request-async', quickInputFocused: true } });
        await ui.assert({
          name: `everything-${transport}-cancel-offer`,
          actions: [{ type: 'trigger-sampling' }, { waitFor: { quickInputActiveRow: 'trigger-sampling-request-async' } }, { press: 'Enter' }],
          expect: { quickInputActiveRow: 'and its request', quickInputRow: 'Cancel only the request', quickInputFocused: true },
          screenshot: true,
        });
        await ui.assert({ name: `everything-${transport}-cancel-both`, actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
        await until(api, () => call.sent()?.state === 'cancelled' && api.view.item(child.id)?.state === 'cancelled', 'the call and its request to be cancelled');
        assert.equal(call.sent()!.detail, undefined, 'a cancelled plain call reads "cancelled", not "failed: cancelled by the user"');
        await until(api, () => api.statusBarText() === '', 'the status bar to count nothing');
        await ui.assert({ name: `everything-${transport}-cancelled-tree`, actions: [{ openView: true }], expect: { treeRows: ['trigger-sampling-request-async', 'cancelled'], activityBarBadge: '' }, screenshot: true });
      });
    });
  }
});
