/**
 * A server's Markdown in our documents (a result's text, a sampling request's prompt): rendered
 * as formatting, never as HTML, a link to anything but a web page, an embedded image or a
 * reference definition. Checked by rendering with markdown-it, the engine of VS Code's Markdown
 * preview, with HTML and linkify on and every link target allowed (the worst case).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { renderServerMarkdown } from '../../../src/core/base/serverMarkdown.js';
import { renderTaskDocument } from '../../../src/core/view/render.js';
import { samplingPreviewMarkdown } from '../../../src/core/sampling/sampling.js';
import type { TaskViewItem } from '../../../src/core/view/taskView.js';

type MarkdownIt = { render(src: string): string; validateLink: (url: string) => boolean };
const MarkdownItCtor = createRequire(__filename)('markdown-it') as new (options: object) => MarkdownIt;
const markdownIt = new MarkdownItCtor({ html: true, linkify: true });
markdownIt.validateLink = () => true;

/** Hrefs, images and raw HTML tags in rendered HTML (markdown-it's own tags excluded). */
function dangerIn(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<a\s[^>]*href="([^"]*)"/g)) if (!/^https?:\/\//.test(m[1]!)) found.push(`link ${m[1]}`);
  for (const m of html.matchAll(/<img\s[^>]*>/g)) found.push(`image ${m[0]}`);
  for (const m of html.matchAll(/<(?!\/?(?:a|p|br|code|pre|h[1-6]|ul|ol|li|strong|em|s|table|thead|tbody|tr|th|td|blockquote|hr)\b)[a-z!][^>]*>/gi)) found.push(`html ${m[0]}`);
  return found;
}

const render = (text: string) => markdownIt.render(renderServerMarkdown(text).join('\n'));

const ATTACKS = [
  '[Fix it](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)',
  '[x](command:_workbench.downloadResource "title")',
  '[x](<command:y>)',
  '[x]( command:y )',
  '[x](javascript:alert(1))',
  '[x](vscode://ext/path) [y](file:///etc/passwd)',
  '<a href="command:workbench.action.openSettings">settings</a>',
  '<img src=x onerror=alert(1)>',
  '\\<img src=x onerror=alert(1)>',
  '\\\\<img src=x onerror=alert(1)>',
  '<command:workbench.action.openSettings>',
  '<!-- comment --><script>alert(1)</script>',
  'bare command:workbench.action.openSettings here',
  '`a <img src=x>` <img src=y>',
  '`unclosed <img src=x>',
  '![img](command:foo) ![remote](https://tracker.example/pixel.png) ![data](data:image/png;base64,AAAA)',
  '[![inner](https://img.example/a.png)](command:y)',
  '[[x](command:a)](command:b)',
  '[ref]\n\n[ref]: command:foo',
  '[ref][r2]\n\n   [r2]: <command:foo> "t"',
  '```\n<img src=x>\n',
  '~~~html\n<script>1</script>\n~~~\n<b>after</b>',
  '    <b>indented</b>\n\n<div>\nblock\n</div>',
  '> quote <img src=x>\n> [x](command:y)',
  '| a | <b>b</b> |\n|---|---|\n| [x](command:z) | c |',
  '# <img src=x> heading [x](command:y)',
];

describe('a server\'s Markdown in our documents', () => {
  test('the attacks are links, images and HTML when rendered as written (so this test can fail)', () => {
    const raw = ATTACKS.flatMap((a) => dangerIn(markdownIt.render(a)));
    assert.ok(raw.filter((d) => d.startsWith('link command:')).length >= 4, raw.join(', '));
    assert.ok(raw.some((d) => d.startsWith('image ')), raw.join(', '));
    assert.ok(raw.some((d) => d.startsWith('html <script')), raw.join(', '));
  });

  test('rendered safely: no HTML, no image, no link but to a web page — alone, and mixed into each other', () => {
    for (const a of ATTACKS) assert.deepEqual(dangerIn(render(a)), [], `${a}\n→ ${renderServerMarkdown(a).join('\n')}\n→ ${render(a)}`);
    for (const a of ATTACKS) {
      for (const b of ATTACKS) {
        for (const sep of ['', ' ', '\n', '\n\n']) {
          const text = `${a}${sep}${b}`;
          assert.deepEqual(dangerIn(render(text)), [], `${JSON.stringify(text)} → ${render(text)}`);
        }
      }
    }
  });

  test('its formatting shows: headings (under ours), emphasis, lists, rules, code, tables, quotes and web links', () => {
    const html = render(
      [
        '# Research Report: AI',
        '',
        '## Research Parameters',
        '- **Topic**: AI',
        '- _Stage_ 2 ✓',
        '',
        '---',
        'Run `tools/call` with [the spec](https://modelcontextprotocol.io/spec).',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
        '',
        '> quoted',
        '',
        '```ts',
        'const x = 1 < 2;',
        '```',
      ].join('\n'),
    );
    assert.match(html, /<h3>Research Report: AI<\/h3>/);
    assert.match(html, /<h4>Research Parameters<\/h4>/);
    assert.match(html, /<li><strong>Topic<\/strong>: AI<\/li>/);
    assert.match(html, /<em>Stage<\/em>/);
    assert.match(html, /<hr>/);
    assert.match(html, /<code>tools\/call<\/code>/);
    assert.match(html, /<a href="https:\/\/modelcontextprotocol\.io\/spec">the spec<\/a>/);
    assert.match(html, /<table>/);
    assert.match(html, /<blockquote>/);
    assert.match(html, /<pre><code class="language-ts">const x = 1 &lt; 2;\n<\/code><\/pre>/);
  });

  test('its line breaks are kept; a link to anything else shows its target as code; an image is a link to it, never embedded', () => {
    assert.match(render('Progress:\nstep 1\nstep 2'), /Progress:<br>\nstep 1<br>\nstep 2/);
    assert.match(render('[open](command:x)'), /open \(<code>command:x<\/code>\)/);
    assert.match(render('![chart](https://img.example/c.png)'), /<a href="https:\/\/img\.example\/c\.png">chart \(image\)<\/a>/);
  });

  test('JSON over several lines in a text is pretty-printed in a code block (its indentation kept)', () => {
    const lines = renderServerMarkdown('Raw result: {\n  "action": "accept",\n  "content": {"a": [1, 2]}\n}\nDone.');
    const html = markdownIt.render(lines.join('\n'));
    assert.match(html, /<p>Raw result:<\/p>/);
    assert.match(html, /<pre><code class="language-json">\{\n {2}&quot;action&quot;: &quot;accept&quot;,\n {2}&quot;content&quot;: \{\n {4}&quot;a&quot;: \[\n {6}1,/);
    assert.match(html, /<p>Done\.<\/p>/);
    // Inside the server's own code block it stays as written.
    assert.deepEqual(renderServerMarkdown('```\n{\n "a": 1\n}\n```'), ['```', '{', ' "a": 1', '}', '```']);
  });

  test('an unclosed fence ends with the text: what follows in our document stays ours', () => {
    assert.deepEqual(renderServerMarkdown('```js\nlet a;'), ['```js', 'let a;', '```']);
  });
});

describe('result documents and the sampling request render the server\'s Markdown', () => {
  const item: TaskViewItem = {
    id: 'sent:s/t',
    kind: 'sent',
    key: 's/t',
    direction: 'sent',
    serverId: 's',
    serverName: 'everything',
    taskId: 't',
    title: 'simulate-research-query',
    state: 'completed',
    createdAt: 0,
  };

  test('a research report: its headings and bold render, under the document\'s own "Result"', () => {
    const md = renderTaskDocument({ ...item, outcome: { kind: 'result', result: { content: [{ type: 'text', text: '# Research Report: AI\n\n## Research Parameters\n- **Topic**: AI' }] } } });
    const html = markdownIt.render(md);
    assert.match(html, /<h2>Result<\/h2>/);
    assert.match(html, /<h3>Research Report: AI<\/h3>/);
    assert.match(html, /<strong>Topic<\/strong>/);
    assert.doesNotMatch(html, /\\#|\\\*/);
  });

  test('an elicitation tool\'s "Raw result" JSON keeps its indentation', () => {
    const md = renderTaskDocument({ ...item, outcome: { kind: 'result', result: { content: [{ type: 'text', text: '\nRaw result: {\n  "action": "decline"\n}' }] } } });
    assert.match(markdownIt.render(md), /<pre><code class="language-json">\{\n {2}&quot;action&quot;: &quot;decline&quot;\n\}/);
  });

  test('the sampling request beside the reply editor: the prompt\'s Markdown renders, its attacks do not', () => {
    const md = samplingPreviewMarkdown('demo', {
      maxTokens: 5,
      systemPrompt: 'Be **brief**. [x](command:y)',
      messages: [{ role: 'user', content: { type: 'text', text: '## Question\nWhat is *MCP*? <img src=x>' } }],
    });
    const html = markdownIt.render(md);
    assert.match(html, /<strong>brief<\/strong>/);
    assert.match(html, /<h5>Question<\/h5>/);
    assert.match(html, /<em>MCP<\/em>/);
    assert.deepEqual(dangerIn(html), []);
  });
});
