// Rows told apart and Run Again…: several calls of one tool show the arguments that tell them apart
// before the tool's name (a narrow sidebar cuts a row from its end); "Run Again…" from the palette
// and from a row's inline action opens Run Tool… at its review with that call's arguments, whose
// words are the user's own call's (Arguments, "do not run the tool"), and one Enter runs it.
import * as assert from 'node:assert/strict';
import type { McpTasksApi } from '../../../src/extension';
import { uiBridgeOrSkip } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
});

suite('rows of one tool told apart, and Run Again…', () => {
  cleanUpAfterEachTest(() => api);

  test('rows37: calls of one tool read their distinguishing argument first; Run Again… fills in the call', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const demo = api.registry.get('demo')!;
    const tool = { name: 'quick_echo', execution: { taskSupport: 'optional' as const } };
    for (let n = 1; n <= 4; n++) await api.tracker.callTool(demo, tool, { text: `row ${n}`, delayMs: 20 });
    const calls = () => api.view.items().filter((i) => i.direction === 'sent' && i.title === 'quick_echo');
    await until(api, () => calls().length === 4 && calls().every((i) => i.state === 'completed'), 'four quick_echo calls to complete');
    // Only what differs (text), before the tool name; delayMs (the same in all) is left out of the title.
    await ui.assert({ name: 'rows37-told-apart', actions: [{ openView: true }], expect: { treeRows: ['text: row 1 · quick_echo', 'text: row 4 · quick_echo'] }, screenshot: true });

    // From the palette: pick the call, the form opens at its review with its arguments.
    await ui.assert({ name: 'rows37-again-pick', actions: [{ runCommand: 'MCP Tasks: Run Again…' }], expect: { quickInputRow: 'quick_echo', quickInputFocused: true } });
    const review = await ui.assert({
      name: 'rows37-again-review',
      actions: [{ type: 'row 3' }, { waitFor: { quickInputActiveRow: 'quick_echo' } }, { press: 'Enter' }],
      expect: { quickInputTitle: 'Run "quick_echo" on "demo" (3/3)', quickInputActiveRow: 'Run', quickInputFocused: true },
      screenshot: true,
    });
    const rows = review.state.quickInput.rows.join(' | ');
    assert.ok(rows.includes('row 3'), `the call's text is filled in: ${rows}`);
    assert.match(rows, /do not run the tool/, 'Cancel of the user\'s own call says what it does');
    assert.doesNotMatch(rows, /dismiss without answering/);
    await ui.assert({ name: 'rows37-again-run', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => calls().length === 5 && calls().every((i) => i.state === 'completed'), 'the call run again to complete');
    assert.equal(calls().filter((i) => i.argsSummary === JSON.stringify({ text: 'row 3', delayMs: 20 })).length, 2, 'run again with the same arguments');

    // From a row's inline action.
    await ui.assert({
      name: 'rows37-again-inline',
      actions: [{ openView: true }, { clickTreeRowAction: { row: 'text: row 2 · quick_echo', action: 'Run Again…' } }],
      expect: { quickInputTitle: '(3/3)', quickInputActiveRow: 'Run', quickInputFocused: true },
    });
    await ui.assert({ name: 'rows37-again-inline-run', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => calls().filter((i) => i.argsSummary === JSON.stringify({ text: 'row 2', delayMs: 20 }) && i.state === 'completed').length === 2, 'the row run again to complete');
  });
});
