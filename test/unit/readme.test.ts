/**
 * README.md is the marketplace listing: a user deciding whether to install reads it first. It leads
 * with what the extension does for them (one paragraph), a picture of the Tasks view and how to
 * install; the user guide follows; the developers' part comes last and opens with the two commands.
 * Developer details live in docs/, linked from the README. These tests keep that shape, keep every
 * image the README shows in the .vsix (as `vsce` lists it, so the listing and VS Code's extension page
 * can show it), and keep every relative link of the README and docs/ pointing at something that exists.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { listFiles, PackageManager } from '@vscode/vsce';
import { ROOT } from '../helpers/host.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
/** The two commands the developers' guide requires the README's Develop part to open with. */
const DEMO = 'npm ci && npm run demo';
const TEST = 'npm ci && npm test';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_IMAGE_BYTES = 300 * 1024;

/** The README cut at its `## ` headings: the lead (title to first heading), then each section. */
function sections(text: string): Array<{ heading: string; body: string }> {
  const parts: Array<{ heading: string; body: string }> = [];
  let current = { heading: '', body: '' };
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('## ')) {
      parts.push(current);
      current = { heading: line.slice(3).trim(), body: '' };
    } else current.body += `${line}\n`;
  }
  parts.push(current);
  return parts;
}

/** Blocks of a Markdown body separated by blank lines (a fenced block counts as one). */
function blocks(body: string): string[] {
  const out: string[] = [];
  let block: string[] = [];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.trim() === '') {
      if (block.length) out.push(block.join('\n'));
      block = [];
    } else block.push(line);
  }
  if (block.length) out.push(block.join('\n'));
  return out;
}

/** `[text](target)` and `![alt](target)` outside code, with whether it is an image. */
function links(text: string): Array<{ target: string; image: boolean; alt: string }> {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g)].map((m) => ({ image: m[1] === '!', alt: m[2]!, target: m[3]! }));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
const anchorsOf = (file: string) =>
  new Set([...readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

describe('README.md: the marketplace listing', () => {
  const [lead, ...rest] = sections(README);
  const headings = rest.map((s) => s.heading);

  test('it leads with the title, one paragraph of what a user gets and a picture of the Tasks view', () => {
    const [title, paragraph, picture, ...more] = blocks(lead!.body);
    assert.equal(title, '# MCP Tasks for VS Code');
    assert.ok(paragraph && !paragraph.startsWith('```') && !paragraph.startsWith('#') && !paragraph.startsWith('!['), `a paragraph after the title, not: ${paragraph}`);
    assert.doesNotMatch(paragraph!, /npm (ci|test|run)/, 'the paragraph is for a user, not a developer');
    assert.ok(paragraph!.length > 200 && paragraph!.length < 1000, `one short paragraph (${paragraph!.length} characters)`);
    const images = links(picture ?? '').filter((l) => l.image);
    assert.equal(images.length, 1, `then one image, not: ${picture}`);
    assert.match(images[0]!.alt, /Tasks view/, 'its alt text says what it shows');
    assert.match(images[0]!.target, /^media\/[\w/.-]+\.png$/, 'a PNG in the repository, by relative path (vsce rewrites it; no SVG)');
    assert.deepEqual(more, [], 'nothing else before the first section');
  });

  test('the picture is a real PNG under 300 KB', () => {
    const target = links(blocks(lead!.body)[2] ?? '').find((l) => l.image)?.target ?? assert.fail('no picture after the lead paragraph');
    const file = join(ROOT, target);
    assert.ok(existsSync(file), `${target} exists`);
    assert.ok(readFileSync(file).subarray(0, 8).equals(PNG_SIGNATURE), `${target} is a PNG`);
    assert.ok(statSync(file).size < MAX_IMAGE_BYTES, `${target} is ${statSync(file).size} bytes`);
  });

  test('Install comes first, the user guide next, Develop last; developer details are not in the README', () => {
    assert.equal(headings[0], 'Install');
    assert.equal(headings.at(-1), 'Develop');
    for (const user of ['Configure servers', 'Settings', 'Commands']) assert.ok(headings.indexOf(user) > 0, `the user guide has "${user}"`);
    for (const dev of ['How it is built', 'Tests', 'Performance']) assert.ok(!headings.includes(dev), `"${dev}" is in docs/, not the README`);
    const beforeDevelop = README.slice(0, README.indexOf('\n## Develop\n'));
    assert.ok(!beforeDevelop.includes(DEMO) && !beforeDevelop.includes(TEST), 'no developer command before Develop');
  });

  test('Develop opens with the two commands, and the CI runs that test command', () => {
    const develop = rest.find((s) => s.heading === 'Develop') ?? assert.fail('no "## Develop" section');
    const first = blocks(develop.body)[0]!;
    assert.match(first, /^```sh\n/, `Develop opens with a shell block, not: ${first}`);
    const commands = first.split('\n').slice(1, -1).map((l) => l.replace(/\s+#.*$/, '').trim());
    assert.deepEqual(commands, [DEMO, TEST]);
    assert.match(develop.body, /`bash \.ci\/run`/, 'it says what the CI runs');
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    assert.equal(ci.at(-1)!.trim(), TEST, '.ci/run ends with the README\'s test command');
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.ok(scripts['demo'] && scripts['test'], 'npm run demo and npm test exist');
  });

  test('the developer pages are in docs/ and the README links each of them', () => {
    const linked = new Set(links(README).map((l) => l.target));
    for (const page of ['docs/development.md', 'docs/architecture.md', 'docs/testing.md', 'docs/performance.md', 'docs/requirements.md']) {
      assert.ok(DOCS.includes(page), `${page} exists`);
      assert.ok(linked.has(page), `the README links ${page}`);
    }
    // The benchmark tables moved, whole: the lead updates their figures there.
    assert.match(readFileSync(join(ROOT, 'docs/performance.md'), 'utf8'), /^\| # \| Measured \| Project \| Baseline \(same run\) \| Ratio \| Goal \| Result \|$/m);
  });

  test('every relative link of the README and docs/ resolves to a file (and its heading, for an anchor)', () => {
    for (const file of ['README.md', ...DOCS]) {
      for (const { target } of links(readFileSync(join(ROOT, file), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, command:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path))).replaceAll('\\', '/');
        assert.ok(!resolved.startsWith('..') && existsSync(join(ROOT, resolved)), `${file}: ${target} → ${resolved} exists`);
        if (anchor !== undefined && resolved.endsWith('.md')) assert.ok(anchorsOf(resolved).has(anchor), `${file}: ${target}: ${resolved} has a heading #${anchor}`);
      }
    }
  });
});

describe('README.md: what the .vsix ships', () => {
  test('every image the README shows is in the package, as vsce lists it (.vscodeignore)', async () => {
    const packaged = new Set((await listFiles({ cwd: ROOT, packageManager: PackageManager.None })).map((f) => f.replaceAll('\\', '/')));
    assert.ok(packaged.has('README.md'));
    const images = links(README).filter((l) => l.image && !/^https?:/.test(l.target));
    assert.ok(images.length > 0);
    for (const { target } of images) assert.ok(packaged.has(normalize(target).replaceAll('\\', '/')), `${target} is packaged`);
  });
});
