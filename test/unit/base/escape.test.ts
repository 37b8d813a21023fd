/**
 * Text a server controls never becomes a link, HTML or Markdown that can
 * run a command. The helpers are checked against the parsers that render them: VS Code's
 * linked-text rule (notifications, quick-input prompts) and a CommonMark renderer with HTML and
 * linkify on (markdown-it, the engine of VS Code's Markdown preview; its hovers use marked,
 * which links even less).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { escapeLinkedText, escapeMarkdown, markdownCodeSpan, markdownFence, safeMarkdownLink } from '../../../src/core/base/escape.js';
import { renderTaskDocument } from '../../../src/core/view/render.js';
import { samplingPreviewMarkdown } from '../../../src/core/sampling/sampling.js';
import type { TaskViewItem } from '../../../src/core/view/taskView.js';

// markdown-it comes with @vscode/vsce (a dev dependency); html + linkify as in the Markdown preview.
// Every link target is allowed (markdown-it alone refuses file: and javascript:): the worst case.
type MarkdownIt = { render(src: string): string; renderInline(src: string): string; validateLink: (url: string) => boolean };
const MarkdownItCtor = createRequire(__filename)('markdown-it') as new (options: object) => MarkdownIt;
const markdownIt = new MarkdownItCtor({ html: true, linkify: true });
markdownIt.validateLink = () => true;

/** VS Code's linked-text rule (src/vs/base/common/linkedText.ts), as notifications and quick-input messages use it. */
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const linksIn = (text: string) => [...text.matchAll(VSCODE_LINK)].map((m) => m[2]);

const ATTACKS = [
  '[Fix it](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)',
  '[x](command:_workbench.downloadResource "title")',
  'see [docs](https://evil.example/x) now',
  '<a href="command:workbench.action.openSettings">settings</a>',
  '<img src=x onerror=alert(1)>',
  '<command:workbench.action.openSettings>',
  'bare command:workbench.action.openSettings here',
  '`code` and ``more `code` `` and ```fence',
  '![img](command:foo)',
  '[ref]\n\n[ref]: command:foo',
  '**bold** _em_ ~~strike~~ # not a heading | pipe | $(zap) &amp; &#x41;',
];

/** Hrefs and raw HTML tags in rendered HTML (markdown-it's own tags excluded). */
function dangerIn(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<a\s[^>]*href="([^"]*)"/g)) found.push(`link ${m[1]}`);
  for (const m of html.matchAll(/<img\s[^>]*>/g)) found.push(`image ${m[0]}`);
  for (const m of html.matchAll(/<(?!\/?(?:a|img|p|br|code|pre|h[1-6]|ul|ol|li|strong|em|table|thead|tbody|tr|th|td|blockquote|hr)\b)[a-z][^>]*>/gi)) found.push(`html ${m[0]}`);
  return found;
}

describe('escapeLinkedText: notifications and quick-input prompts show server text, never a link', () => {
  test('the attacks are links before escaping (so this test can fail) and none after', () => {
    assert.ok(linksIn(ATTACKS[0]!).length === 1 && linksIn(ATTACKS[1]!).length === 1 && linksIn(ATTACKS[2]!).length === 1);
    for (const a of ATTACKS) assert.deepEqual(linksIn(escapeLinkedText(a)), [], a);
    assert.deepEqual(linksIn(escapeLinkedText(ATTACKS.join(' '))), []);
  });

  test('the text reads the same: only an invisible zero-width space is added, and only between "]" and "("', () => {
    const shown = escapeLinkedText('Click [here](command:x) or [there](https://y) — a (b) [c]');
    assert.equal(shown.replace(/\u200b/g, ''), 'Click [here](command:x) or [there](https://y) — a (b) [c]');
    assert.equal(shown.match(/\u200b/g)?.length, 2);
    assert.equal(escapeLinkedText('no links: <a href="command:x">, `x`, command:y'), 'no links: <a href="command:x">, `x`, command:y');
  });

  test('nested and repeated brackets cannot re-form a link', () => {
    for (const a of ['[[x](command:a)](command:b)', '[x]]((command:a)', '[x](command:a)[y](command:b)', '[x](\ncommand:a)', '[x]\u200b(command:a)']) {
      assert.deepEqual(linksIn(escapeLinkedText(a)), [], a);
    }
  });
});

describe('escapeMarkdown: tooltips and task documents render server text as text', () => {
  test('the attacks render to links and HTML unescaped (control) and to plain text escaped', () => {
    const raw = dangerIn(markdownIt.render(ATTACKS.join('\n\n')));
    assert.ok(raw.some((d) => d.startsWith('link command:')), `control: ${raw.join(', ')}`);
    assert.ok(raw.some((d) => d.startsWith('image ')), `control: ${raw.join(', ')}`);
    assert.ok(raw.filter((d) => d.startsWith('link command:')).length >= 4, `control: ${raw.join(', ')}`);
    for (const a of ATTACKS) {
      for (const multiline of [false, true]) {
        const html = markdownIt.render(escapeMarkdown(a, { multiline }));
        // linkify may still turn a plain https URL into a link to that URL; never anything else.
        assert.deepEqual(dangerIn(html).filter((d) => !d.startsWith('link https://')), [], `${a} → ${html}`);
        assert.doesNotMatch(html, /<code>|<strong>|<em>|<s>|<h1>/, `${a} → ${html}`);
      }
    }
  });

  test('what renders is exactly the text (entities aside)', () => {
    const text = 'a [x](command:y) <b>b</b> `c` *d* _e_ ~f~ | g \\ h $(zap) &amp;';
    const html = markdownIt.renderInline(escapeMarkdown(text));
    const decoded = html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    assert.equal(decoded, text);
  });

  test('names stay readable: an underscore inside a word is not escaped (it cannot emphasise)', () => {
    assert.equal(escapeMarkdown('confirm_deploy'), 'confirm_deploy');
    assert.equal(markdownIt.renderInline(escapeMarkdown('a_b_c _em_ __strong__')), 'a_b_c _em_ __strong__');
  });

  test('single-line mode joins lines; multiline keeps them and escapes block starts', () => {
    assert.equal(escapeMarkdown('a\nb\r\nc'), 'a b c');
    const html = markdownIt.render(escapeMarkdown('# title\n> quote\n- item\n1. one\n===\n    indented', { multiline: true }));
    assert.doesNotMatch(html, /<h1>|<blockquote>|<ul>|<ol>|<li>/, html);
    assert.equal((html.match(/<br>/g) ?? []).length, 5, html);
  });
});

describe('markdownCodeSpan: verbatim, no backslashes shown', () => {
  const rendered = (s: string) => {
    const m = /^<p><code>([\s\S]*)<\/code><\/p>\n$/.exec(markdownIt.render(markdownCodeSpan(s)));
    assert.ok(m, `one code span for ${JSON.stringify(s)}: ${markdownIt.render(markdownCodeSpan(s))}`);
    return m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  };

  test('a command line with dashes, dots, backslashes and brackets shows exactly as written', () => {
    for (const s of ['mcp-server-that-fails --port 3.5', 'C:\\tools\\mcp.exe [x](command:y) <b>', 'a*b*_c_']) assert.equal(rendered(s), s);
  });

  test('backticks inside: the fence is longer than any run, edges padded', () => {
    for (const s of ['a`b', 'a``b```c', '`starts', 'ends`', '``', ' spaced ']) assert.equal(rendered(s), s, s);
    assert.equal(markdownCodeSpan('a``b'), '```a``b```');
  });

  test('line breaks become spaces', () => {
    assert.equal(rendered('a\nb'), 'a b');
  });
});

describe('markdownFence and safeMarkdownLink', () => {
  test('a fence no line of the text can close', () => {
    const text = '```\n# not a heading\n[x](command:y)\n````';
    const html = markdownIt.render(markdownFence(text, 'json').join('\n'));
    assert.match(html, /^<pre><code class="language-json">/);
    assert.deepEqual(dangerIn(html), []);
    assert.ok(html.includes('[x](command:y)'));
  });

  test('only http, https, file and data targets become links; others are shown as text', () => {
    assert.match(markdownIt.render(safeMarkdownLink('out.log', 'file:///tmp/out.log')), /<a href="file:\/\/\/tmp\/out\.log">out\.log<\/a>/);
    assert.match(markdownIt.render(safeMarkdownLink('site', 'https://example.com/a b(c)')), /<a href="https:\/\/example\.com\/a%20b%28c%29">site<\/a>/);
    for (const target of ['command:workbench.action.openSettings', 'vscode://x/y', 'javascript:alert(1)', 'not a url']) {
      const html = markdownIt.render(safeMarkdownLink('[x](command:z)', target));
      assert.deepEqual(dangerIn(html), [], html);
    }
  });
});

describe('task documents and the sampling preview: no command link from server text', () => {
  const evil = '[Run me](command:workbench.action.openSettings) <a href="command:x">html</a> <command:y>';
  const item: TaskViewItem = {
    id: 'sent:s/t',
    kind: 'sent',
    key: 's/t',
    direction: 'sent',
    serverId: 's',
    serverName: `srv ${evil}`,
    taskId: 't',
    title: `tool ${evil}`,
    state: 'failed',
    createdAt: 0,
    detail: `note ${evil}`,
    task: { taskId: 't', status: 'failed', statusMessage: `status ${evil}`, ttl: null, createdAt: '2026-01-01T00:00:00.000Z', lastUpdatedAt: '2026-01-01T00:00:00.000Z' },
  };

  test('error documents', () => {
    const md = renderTaskDocument({ ...item, outcome: { kind: 'error', code: -32000, message: `boom ${evil}\n# heading`, data: { evil: '```\n[x](command:z)' } } });
    assert.deepEqual(dangerIn(markdownIt.render(md)), []);
    assert.ok(md.includes('command'), 'the text is still shown');
  });

  test('results: text, links, resources, images, models', () => {
    const md = renderTaskDocument({
      ...item,
      state: 'completed',
      outcome: {
        kind: 'result',
        result: {
          model: `m\` ${evil}`,
          stopReason: evil,
          content: [
            { type: 'text', text: `line 1 ${evil}\n\n[ref]: command:foo\n[ref]` },
            { type: 'resource_link', uri: 'command:workbench.action.openSettings', name: evil, description: evil },
            { type: 'resource', resource: { uri: 'command:x', text: evil } },
            { type: 'image', mimeType: 'image/png)[x](command:y', data: 'iVBORw0KGgo=' },
            { type: 'image', mimeType: 'image/png', data: 'abc)[x](command:y' },
          ],
        },
      },
    });
    const html = markdownIt.render(md);
    assert.deepEqual(dangerIn(html).filter((d) => !d.startsWith('image ') && !d.startsWith('link data:')), [], html);
    assert.doesNotMatch(html, /href="command|src="command/);
  });

  test('the "Show the full request" preview of a sampling request', () => {
    const md = samplingPreviewMarkdown(`srv ${evil}`, {
      maxTokens: 5,
      systemPrompt: `sys ${evil}`,
      messages: [{ role: 'user', content: { type: 'text', text: `hi ${evil}` } }],
      modelPreferences: { hints: [{ name: evil }] },
      stopSequences: [evil],
    });
    assert.deepEqual(dangerIn(markdownIt.render(md)), []);
  });
});
