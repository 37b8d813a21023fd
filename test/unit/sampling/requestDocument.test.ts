// The document of a sampling request ("Show the full request", the reply editor's request beside
// it) renders at most REQUEST_RENDER_BOUND characters of the server's text, and says what is left out.
import * as assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { REQUEST_RENDER_BOUND, samplingPreviewMarkdown } from '../../../src/core/sampling/sampling.js';

const text = (t: string) => ({ type: 'text' as const, text: t });
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i} ${'x'.repeat(60)}`).join('\n');

suite('sampling request document', () => {
  test('a 5 MB request shows its first part, names what is left out, and keeps the messages in order', () => {
    const first = lines(40_000, 'first'); // ≈ 3 MB
    const second = lines(20_000, 'second'); // ≈ 1.5 MB
    const third = lines(10_000, 'third');
    const md = samplingPreviewMarkdown('big', { maxTokens: 9, systemPrompt: 'Be brief.', messages: [{ role: 'user', content: text(first) }, { role: 'assistant', content: text(second) }, { role: 'user', content: text(third) }] });
    // Rendering adds a little (a hard line break is two spaces at each line end).
    assert.ok(md.length < REQUEST_RENDER_BOUND * 1.05, `rendered ${md.length} characters`);
    assert.match(md, /## System prompt\n\nBe brief\./);
    assert.match(md, /first line 0 x/);
    // Cut at a line end, never inside a line.
    const shown = md.match(/first line \d+ x+ *\n/g)!;
    assert.ok(shown.length > 1000 && shown.length < 40_000, `${shown.length} lines of the first message`);
    assert.doesNotMatch(md, /second line/);
    const leftOut = first.length + second.length + third.length + 'Be brief.'.length - (md.match(/first line \d+ x+/g)!.join('\n').length + 'Be brief.'.length);
    assert.match(md, /This request is too large to show whole: ([\d.]+) MB of its text and 2 more messages are left out here \(it shows the first 1\.0 MB\)\. The model receives all of it\./);
    const said = Number(/: ([\d.]+) MB of its text/.exec(md)![1]);
    assert.ok(Math.abs(said - leftOut / 1_000_000) < 0.1, `says ${said} MB, left out ${leftOut}`);
  });

  test('a request under the bound is shown whole, with no note', () => {
    const md = samplingPreviewMarkdown('small', { maxTokens: 9, messages: [{ role: 'user', content: text('hello') }, { role: 'assistant', content: text('world') }] });
    assert.match(md, /### user\n\nhello/);
    assert.match(md, /### assistant\n\nworld/);
    assert.doesNotMatch(md, /too large/);
  });

  test('a single line longer than the bound is cut at the bound', () => {
    const md = samplingPreviewMarkdown('one', { maxTokens: 9, messages: [{ role: 'user', content: text('y'.repeat(3_000_000)) }] }, 1_000);
    assert.ok(md.length < 2_000, `rendered ${md.length} characters`);
    assert.match(md, /3\.0 MB of its text are left out here \(it shows the first 1 KB\)/); // 3,000,000 − 1,000
  });
});
