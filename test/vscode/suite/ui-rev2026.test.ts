// MCP 2026-07-28 in the real UI: the demo workspace's "demo-2026-07-28" server (the demo server's
// `--revision 2026-07-28` mode, official SDK v2) asks for input the 2026 way — its tools/call
// answers input_required with inputRequests, and the host retries the call with the answers. A
// form and then a sampling request of one call are answered through Respond…, the form steps and
// the consent pick, with the test-only vscode.lm model answering the sampling.
import * as assert from 'node:assert/strict';
import type { McpTasksApi } from '../../../src/extension';
import type { TaskViewItem } from '../../../src/core/view/taskView';
import { uiBridge, uiBridgeOrSkip, type UiBridge } from '../bridge';
import { fakeModel, needFakeModel } from '../fakeModel';
import { openWithRespond } from '../respond';
import { apiWithServersRunning, cleanUpAfterEachTest, until } from '../util';

const SERVER = 'demo-2026-07-28';
const TOPIC = 'What should the haiku be about?';
let api: McpTasksApi;
let hasModel = false;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning(SERVER);
  hasModel = !!(await fakeModel(uiBridge() ? 30_000 : 0));
});

/** Starts write_haiku (it ends only once its rounds are answered) and waits for its form to wait for the user. */
async function startHaiku(): Promise<{ item: () => TaskViewItem | undefined; done: Promise<string> }> {
  const before = new Set(api.view.items().map((i) => i.id));
  const done = api.tracker.callTool(api.registry.get(SERVER)!, { name: 'write_haiku' }, {});
  const item = () => api.view.items().find((i) => i.direction === 'sent' && i.serverId === SERVER && i.title === 'write_haiku' && !before.has(i.id));
  await until(api, () => !!item() && (api.prompts.waitingIds.length > 0 || api.prompts.activeId !== undefined), 'the haiku form to wait for the user', 60_000);
  return { item, done };
}

/** Opens the waiting form with Respond… (unless it opened by itself) and waits for its first step. */
async function openTopicForm(ui: UiBridge, name: string): Promise<void> {
  const first = { quickInputTitle: `"${SERVER}" asks: ${TOPIC} (1/3)`, quickInputFocused: true };
  if (api.prompts.activeId === undefined) await openWithRespond(ui, name, { row: TOPIC, expect: first, screenshot: true });
  else await ui.assert({ name: `${name}-open`, expect: first, screenshot: true });
}

suite('MCP 2026-07-28: input_required through the UI', () => {
  setup(function () {
    needFakeModel(this, hasModel);
  });
  cleanUpAfterEachTest(() => api);

  test('write_haiku on demo-2026-07-28: its form (round 1) and its sampling request (round 2) answered through Respond…; the call ends with the haiku', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const server = api.registry.get(SERVER)!;
    assert.equal(server.state.kind === 'running' ? server.state.protocolVersion : undefined, '2026-07-28', 'negotiated 2026-07-28');
    const haiku = await startHaiku();

    // Round 1: the form, as for a direct elicitation: topic, mood (an enum with its default), review.
    await openTopicForm(ui, 'rev2026-form');
    await ui.assert({ name: 'rev2026-topic', actions: [{ type: 'autumn rain' }, { press: 'Enter' }], expect: { quickInputTitle: '(2/3)', quickInputFocused: true, quickInputActiveRow: 'calm' } });
    await ui.assert({ name: 'rev2026-mood', actions: [{ type: 'wistful' }, { waitFor: { quickInputActiveRow: 'wistful' } }, { press: 'Enter' }], expect: { quickInputTitle: '(3/3)', quickInputActiveRow: 'Accept' }, screenshot: true });
    await ui.assert({ name: 'rev2026-form-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });

    // Round 2: the call is retried with the answer; the server now asks for a haiku (sampling).
    await until(api, () => api.prompts.waitingIds.length > 0 || api.prompts.activeId !== undefined, 'the sampling consent to wait for the user', 60_000);
    const consent = { quickInputTitle: `MCP server "${SERVER}" wants to use a language model`, quickInputActiveRow: 'Allow once', quickInputFocused: true };
    if (api.prompts.activeId === undefined) await openWithRespond(ui, 'rev2026-consent', { row: 'wants to use a language model', expect: consent, screenshot: true });
    const shown = await ui.assert({ name: 'rev2026-consent-open', expect: consent });
    assert.match(shown.state.quickInput.rows.find((r) => r.includes('Allow once')) ?? '', /last: "Write a wistful haiku about autumn rain\."/, 'the consent previews the request');
    await ui.assert({ name: 'rev2026-allow-once', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });

    const key = await haiku.done;
    await until(api, () => haiku.item()?.state === 'completed' && !!haiku.item()?.outcome, 'write_haiku to complete');
    const outcome = haiku.item()!.outcome!;
    assert.ok(outcome.kind === 'result', JSON.stringify(outcome));
    const text = JSON.stringify(outcome.result);
    assert.ok(text.includes('A wistful haiku about autumn rain') && text.includes('Echo: Write a wistful haiku about autumn rain.'), text);
    assert.equal(api.tracker.get(key)?.mode, 'plain', 'the server answered the call itself, not as a task');
    await ui.assert({ name: 'rev2026-done', actions: [{ openView: true }], expect: { treeRows: [SERVER, 'write_haiku'], activityBarBadge: '' }, screenshot: true });
  });

  test('while write_haiku waits for its form, the call shows "waiting for you" under it in the tree', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    await startHaiku();
    const tree = await ui.check({ name: 'rev2026-nested', actions: [{ openView: true }], expect: { treeRows: ['write_haiku', 'waiting for you'] }, screenshot: true });
    const rows = tree.state.treeRows;
    const call = rows.findIndex((r) => r.startsWith('write_haiku'));
    assert.ok(tree.ok && call >= 0 && /waiting for you/.test(rows[call + 1] ?? ''), `a "waiting for you" row right under write_haiku: ${JSON.stringify(rows)}`);
  });
});
