// Sampling with a real `vscode.lm` chat model. code-server has none, so the offline runner
// installs a test-only extension (test/vscode/fake-lm, vendor "mcp-tasks-fake") whose model
// answers "Echo: <last user message>". The demo server's `ask_model` sends a task-augmented
// sampling/createMessage; the consent prompt waits in the background until "Respond…".
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import type { TaskViewItem } from '../../../src/core/view/taskView';
import { uiBridge, uiBridgeOrSkip, type UiBridge } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';
import { openWithRespond } from '../respond';
import { FAKE_VENDOR, fakeModel, needFakeModel } from '../fakeModel';

let api: McpTasksApi;
let model: vscode.LanguageModelChat | undefined;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
  model = await fakeModel(uiBridge() ? 30_000 : 0);
});

/** Starts `ask_model` and waits for its received sampling task to wait for the user. */
async function ask(prompt: string): Promise<{ sent: () => TaskViewItem | undefined; received: () => TaskViewItem | undefined }> {
  const before = new Set(api.view.items().map((i) => i.id));
  const key = await api.tracker.callTool(currentDemo(), { name: 'ask_model', execution: { taskSupport: 'optional' } }, { prompt });
  const received = () => api.view.items().find((i) => i.direction === 'received' && i.serverId === 'demo' && i.title === 'Sampling' && !before.has(i.id));
  await until(api, () => !!received(), 'the sampling request to arrive');
  return { sent: () => api.view.item(`sent:${key}`), received };
}

/** Opens the waiting sampling request with "Respond…" and waits for the consent pick. */
async function openConsent(ui: UiBridge, name: string, received: TaskViewItem): Promise<void> {
  await until(api, () => api.prompts.waitingIds.includes(received.id), 'the consent prompt to wait for the user');
  await openWithRespond(ui, name, {
    row: 'Sampling',
    filter: received.taskId,
    expect: { quickInputTitle: 'MCP server "demo" wants to use a language model', quickInputActiveRow: 'Allow once', quickInputFocused: true },
    screenshot: true,
  });
}

function answerText(item: TaskViewItem | undefined): string {
  assert.ok(item?.outcome?.kind === 'result', `a tool result: ${JSON.stringify(item?.outcome)}`);
  const r = item.outcome.result as { content?: Array<{ type: string; text?: string }> };
  return (r.content ?? []).map((c) => c.text ?? '').join('');
}

suite('Sampling with a vscode.lm model (test-only fake provider)', () => {
  setup(function () {
    needFakeModel(this, model);
  });
  cleanUpAfterEachTest(() => api);
  suiteTeardown(async () => {
    await api?.sampler.revoke(['demo']);
  });

  test('the fake model is selected by vscode.lm and answers deterministically', async function () {
    const m = model!;
    assert.equal(m.vendor, FAKE_VENDOR);
    const res = await m.sendRequest([vscode.LanguageModelChatMessage.User('ping')], {});
    let text = '';
    for await (const chunk of res.text) text += chunk;
    assert.equal(text, 'Echo: ping');
  });

  test('consent shows the server, a preview and maxTokens; "Allow once" sends the request to the model and its answer to the server', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const s = await ask('What is six times seven? (allow once)');
    await openConsent(ui, 'sampling-consent', s.received()!);
    const consent = (await ui.state()).quickInput;
    assert.match(consent.placeholder, /maxTokens 400/);
    const once = consent.rows.find((r) => r.includes('Allow once')) ?? '';
    assert.match(once, /using Fake Echo Model/);
    assert.match(once, /last: "What is six times seven\? \(allow once\)"/, 'the row previews the request');
    assert.ok(consent.rows.some((r) => r.includes('Always allow for "demo"')), consent.rows.join(' | '));
    await ui.assert({ name: 'sampling-allow-once', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => !!s.sent()?.outcome, 'ask_model to finish');
    assert.equal(s.sent()!.state, 'completed');
    assert.equal(answerText(s.sent()), 'Echo: What is six times seven? (allow once)');
    const structured = (s.sent()!.outcome as { result: { structuredContent?: { model?: string } } }).result.structuredContent;
    assert.match(structured?.model ?? '', /fake-echo/, 'the server learns which model answered');
    assert.equal(s.received()!.state, 'completed');
    assert.deepEqual(api.sampler.alwaysAllowed, [], '"Allow once" is not remembered');
  });

  test('"Always allow for demo" answers at once the next time; "Revoke Remembered Consent…" asks again; "Deny" fails the request with a clear message', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    // Always allow.
    const first = await ask('first, always allowed');
    await openConsent(ui, 'sampling-always', first.received()!);
    await ui.assert({ name: 'sampling-always-pick', actions: [{ type: 'Always allow' }, { waitFor: { quickInputActiveRow: 'Always allow' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => !!first.sent()?.outcome, 'the first ask_model to finish');
    assert.equal(answerText(first.sent()), 'Echo: first, always allowed');
    assert.deepEqual(api.sampler.alwaysAllowed, ['demo']);

    // The next request runs without a prompt.
    let prompted = false;
    const watch = api.prompts.onDidChange(() => (prompted ||= api.prompts.waitingIds.length > 0 || api.prompts.activeId !== undefined));
    try {
      const second = await ask('second, no prompt');
      await until(api, () => !!second.sent()?.outcome, 'the second ask_model to finish');
      assert.equal(answerText(second.sent()), 'Echo: second, no prompt');
      assert.equal(second.received()!.state, 'completed');
    } finally {
      watch.dispose();
    }
    assert.equal(prompted, false, 'no prompt was shown or queued');
    await ui.assert({ name: 'sampling-no-prompt', expect: { quickInputVisible: false, activityBarBadge: '' } });

    // Revoke through the palette (a multi-select of every remembered consent, by definition).
    await ui.assert({ name: 'sampling-revoke', actions: [{ runCommand: 'MCP Tasks: Revoke Remembered Consent…' }], expect: { quickInputRow: 'Always allow sampling: "demo"', quickInputChecked: [] } });
    await ui.assert({ name: 'sampling-revoke-check', actions: [{ press: ['ArrowDown', 'Space'] }], expect: { quickInputChecked: ['demo'] }, screenshot: true });
    await ui.assert({ name: 'sampling-revoke-ok', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => api.sampler.alwaysAllowed.length === 0, 'the consent to be revoked');

    // Asks again; Deny.
    const third = await ask('third, denied');
    await openConsent(ui, 'sampling-ask-again', third.received()!);
    await ui.assert({ name: 'sampling-deny', actions: [{ type: 'Deny' }, { waitFor: { quickInputActiveRow: 'Deny' } }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => third.received()?.state === 'failed' && !!third.sent()?.outcome, 'the denied request to fail on both sides');
    assert.match(third.received()!.task?.statusMessage ?? '', /The user denied the sampling request from "demo"/);
    // The server's SDK polls the client task, sees it failed and fails its own task (naming ours).
    assert.equal(third.sent()!.state, 'failed', 'the server got an error and failed its task');
    assert.ok(JSON.stringify(third.sent()!.outcome).includes(`Task ${third.received()!.taskId} failed`), JSON.stringify(third.sent()!.outcome));
    // First time the view is shown in this suite: everything arrived while it was hidden.
    const tree = await ui.assert({ name: 'sampling-denied-tree', actions: [{ openView: true }], expect: { treeRows: ['Sampling', 'failed'] }, screenshot: true });
    const rows = tree.state.treeRows;
    const http = rows.findIndex((r) => r.startsWith('demo-http'));
    assert.ok(http >= 0, `demo-http is listed: ${JSON.stringify(rows)}`);
    assert.match(rows[http + 1] ?? '', /^Sent\b/, `demo-http shows its own groups, not another server's tasks: ${JSON.stringify(rows)}`);
    // demo-http's rows end at the next server row (the servers' order depends on which was configured last).
    const end = rows.findIndex((r, i) => i > http && /^[\w-]+ (running|stopped|starting)\b/.test(r));
    assert.equal(rows.slice(http, end < 0 ? undefined : end).filter((r) => /^Sampling \d+s · /.test(r)).length, 0, JSON.stringify(rows));
    assert.ok(rows.some((r) => /^Sampling \d+s · failed/.test(r)), `demo's denied request is listed: ${JSON.stringify(rows)}`);
  });
});

/** The demo connection now: a suite before this one may have re-created it (mcp.json deleted and restored). */
function currentDemo(): McpConnection {
  const demo = api.registry.get('demo');
  assert.ok(demo, 'demo is configured');
  return demo;
}
