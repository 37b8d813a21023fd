// A task's document while its result is fetched, and a result too large to render: the header and
// a "loading" line at once; past the bound a note instead of 5 MB of Markdown, and a plain-text
// view of the first part that says how much it leaves out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTaskDocument, RESULT_HEAD_CHARS, RESULT_RENDER_BOUND } from '../../../src/core/view/render.js';
import { formatSize } from '../../../src/core/base/size.js';
import { renderPlainResult, resultPlainText } from '../../../src/core/view/plainResult.js';
import type { TaskViewItem } from '../../../src/core/view/taskView.js';

const base: TaskViewItem = { id: 'sent:demo/t1', kind: 'sent', key: 'demo/t1', direction: 'sent', serverId: 'demo', serverName: 'Demo', taskId: 't1', title: 'big_tool', state: 'completed', createdAt: 0, task: { taskId: 't1', status: 'completed', createdAt: '1970-01-01T00:00:00.000Z', lastUpdatedAt: '1970-01-01T00:00:00.000Z', ttl: null } };
const bigJson = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ row: i, label: i === 0 ? 'first row' : i === 39_999 ? 'last row' : `row ${i}` })));
const big: TaskViewItem = { ...base, outcome: { kind: 'result', result: { content: [{ type: 'text', text: bigJson }] } } };

describe('task documents open at once', () => {
  test('while the result is fetched: the header and "Loading the result…", then the result', () => {
    const loading = renderTaskDocument({ ...base, state: 'completed' }, { loading: true });
    assert.match(loading, /^# big_tool/);
    assert.match(loading, /\| taskId \| t1 \|/);
    assert.match(loading, /_Loading the result…_/);
    assert.doesNotMatch(renderTaskDocument({ ...base }), /Loading/, 'not fetching: no result yet, not loading');
    const done = renderTaskDocument({ ...base, outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'hello' }] } } }, { loading: true });
    assert.match(done, /hello/);
    assert.doesNotMatch(done, /Loading/, 'a result in hand is shown, whatever the flag');
  });

  test('a result over the bound is not rendered: the document says how large it is', () => {
    const chars = resultPlainText(big.outcome!).length;
    assert.ok(chars > RESULT_RENDER_BOUND, `${chars}`);
    const started = performance.now();
    const md = renderTaskDocument(big, { resultChars: chars });
    assert.ok(md.length < 2_000, `a note, not the result: ${md.length} characters`);
    assert.match(md, new RegExp(`The result is ${formatSize(chars).replace('.', '\\.')}, too large to show rendered`));
    assert.doesNotMatch(md, /first row/);
    assert.ok(performance.now() - started < 200);
    // Under the bound it renders as before.
    assert.match(renderTaskDocument(big, { resultChars: RESULT_RENDER_BOUND }), /first row/);
  });

  test('the plain-text view: the task, its first part cut at a line end, and how much is left out', () => {
    const text = resultPlainText(big.outcome!);
    assert.match(text, /^\[\n {2}\{\n {4}"row": 0,/, 'JSON text pretty-printed, as the rendered document shows it');
    const head = renderPlainResult(big, text, 'head', RESULT_HEAD_CHARS);
    assert.ok(head.length < RESULT_HEAD_CHARS + 1_000, `${head.length}`);
    assert.match(head.split('\n')[0]!, /^big_tool — sent to Demo$/);
    assert.match(head, /taskId t1 · completed/);
    assert.match(head, /first row/);
    assert.doesNotMatch(head, /last row/);
    assert.match(head, /"Open the full result" above opens all of it/);
    const shownChars = text.lastIndexOf('\n', RESULT_HEAD_CHARS);
    assert.ok(head.includes(`… ${formatSize(text.length - shownChars)} more, left out here`));
    const cutLine = head.split('\n').slice(-3, -2)[0]!;
    assert.ok(text.includes(`${cutLine}\n`), 'cut at the end of a line, not inside one');
    const full = renderPlainResult(big, text, 'full', RESULT_HEAD_CHARS);
    assert.ok(full.includes('last row') && full.includes('first row'));
    assert.doesNotMatch(full, /left out/);
  });

  test('server text stays text in the plain view (no escaping needed, nothing added)', () => {
    const hostile = '[x](command:workbench.action.terminal.new) <a href="command:x">y</a>';
    const item: TaskViewItem = { ...base, outcome: { kind: 'result', result: { content: [{ type: 'text', text: hostile }], structuredContent: { k: 1 } } } };
    const text = resultPlainText(item.outcome!);
    assert.equal(text, `${hostile}\n\n{\n  "k": 1\n}`);
    assert.ok(renderPlainResult(item, text, 'head', RESULT_HEAD_CHARS).endsWith(text));
    assert.match(resultPlainText({ kind: 'error', code: -32603, message: 'boom' }), /"message": "boom"/);
  });

  test('sizes read as a user reads them', () => {
    assert.equal(formatSize(5_200_000), '5.2 MB');
    assert.equal(formatSize(310_400), '310 KB');
    assert.equal(formatSize(12), '12 characters');
  });
});
