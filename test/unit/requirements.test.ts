/**
 * docs/requirements.md defines the protocol rule ids (`R-CANCEL-1`, …) that comments, test names and
 * messages cite. These tests keep the page and the repository in step: every id cited is defined,
 * and every file, symbol, setting and test name the page names exists.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/host.js';

const PAGE = 'docs/requirements.md';
const page = readFileSync(join(ROOT, PAGE), 'utf8');

/** Where the repository cites rule ids: its own sources and documents (not node_modules, dist or fixtures' output). */
const CITING_FOLDERS = ['src', 'test', 'bench', 'scripts', 'examples'];
/** The documents: README.md, SECURITY.md, CHANGELOG.md and every page of docs/ (the page itself among them). */
const CITING_FILES = ['README.md', 'SECURITY.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const TEXT_FILE = /\.(ts|mts|cts|js|mjs|cjs|json|md)$/;

function filesBelow(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => TEXT_FILE.test(f) && !f.split(/[\\/]/).includes('node_modules'))
    .map((f) => join(folder, f).replaceAll('\\', '/'));
}

/**
 * The rule ids a text cites: `R-LIST-1`, and each of a run such as `R-CANCEL-1/2/3`; a topic alone
 * (`R-LIST`) is cited as the topic, and an `R-` with a number but no topic as an id the page cannot define.
 */
function citedIds(text: string): { ids: Set<string>; topics: Set<string> } {
  const ids = new Set<string>();
  const topics = new Set<string>();
  for (const [cited, topic, numbers] of text.matchAll(/\bR-(?:([A-Z]+)(?:-(\d+(?:\/\d+)*))?|\d+)(?![\w-])/g)) {
    if (topic === undefined) ids.add(cited); // a number with no topic is no rule of the page
    else if (numbers === undefined) topics.add(`R-${topic}`);
    else for (const n of numbers.split('/')) ids.add(`R-${topic}-${n}`);
  }
  return { ids, topics };
}

const definedIds = new Set([...page.matchAll(/^### (R-[A-Z]+-\d+)\s*$/gm)].map((m) => m[1]));
const definedTopics = new Set([...page.matchAll(/^## (R-[A-Z]+) — /gm)].map((m) => m[1]));

/** A repository path the page names in backticks (`src/core/…/x.ts`). */
const PATH = /^(?:src|test|bench|scripts|examples|docs|api|media)\/[\w./-]+$/;
const namedPaths = [...new Set([...page.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]).filter((p) => PATH.test(p)))];

const cache = new Map<string, string>();
function contentOf(path: string): string {
  let text = cache.get(path);
  if (text === undefined) cache.set(path, (text = readFileSync(join(ROOT, path), 'utf8')));
  return text;
}

/**
 * The titles a test file gives: the first argument of `test(…)`, `it(…)`, `describe(…)` (and the demo
 * server's smoke `check(…)`), and the `name:` of a hostile-server attack (its test is titled by it).
 */
function titlesIn(path: string): string[] {
  const titles: string[] = [];
  for (const m of contentOf(path).matchAll(/(?:\b(?:test|it|describe|check)(?:\.\w+)?\s*\(\s*|\bname:\s*)(['"`])((?:\\.|(?!\1)[^\\])*)\1/g)) {
    titles.push(m[2].replace(/\\(.)/g, '$1'));
  }
  return titles;
}

describe('docs/requirements.md: the page that defines the rule ids', () => {
  test('it defines rules of every topic, each once', () => {
    const headings = [...page.matchAll(/^### (R-[A-Z]+-\d+)\s*$/gm)].map((m) => m[1]);
    assert.equal(headings.length, definedIds.size, 'no id is defined twice');
    assert.ok(definedIds.size >= 30 && definedIds.has('R-CANCEL-1') && definedIds.has('R-SEC-4'));
    for (const id of definedIds) assert.ok(definedTopics.has(id.replace(/-\d+$/, '')), `${id} is under its topic's heading`);
  });

  test('every rule id the repository cites is defined there', () => {
    const undefinedCitations: string[] = [];
    const files = [...CITING_FOLDERS.flatMap(filesBelow), ...CITING_FILES];
    for (const file of files) {
      const { ids, topics } = citedIds(readFileSync(join(ROOT, file), 'utf8'));
      for (const id of ids) if (!definedIds.has(id)) undefinedCitations.push(`${file}: ${id}`);
      for (const t of topics) if (!definedTopics.has(t)) undefinedCitations.push(`${file}: ${t}`);
    }
    assert.ok(files.length > 100, 'the sources were found');
    assert.deepEqual(undefinedCitations, [], `cited but not defined in ${PAGE}`);
  });

  test('every file it names exists', () => {
    assert.ok(namedPaths.length > 20);
    assert.deepEqual(namedPaths.filter((p) => !existsSync(join(ROOT, p))), [], `named in ${PAGE} but missing`);
  });

  test('every symbol it names after a file is in that file', () => {
    // `src/x.ts` (`symbolA`, `symbolB`: `symbolC`) — identifiers in the parenthesis after a path.
    const missing: string[] = [];
    let checked = 0;
    for (const m of page.matchAll(/`([^`\s]+)`\s*\(([^)]*)\)/g)) {
      const [, path, names] = m;
      if (!PATH.test(path) || !existsSync(join(ROOT, path))) continue;
      for (const [, symbol] of names.matchAll(/`([A-Za-z_$][\w$]*)`/g)) {
        checked++;
        if (!new RegExp(`\\b${symbol.replaceAll('$', '\\$')}\\b`).test(contentOf(path))) missing.push(`${path}: ${symbol}`);
      }
    }
    assert.ok(checked > 30);
    assert.deepEqual(missing, [], `symbols named in ${PAGE} but not found in their file`);
  });

  test('every test name it quotes is the title (or part of it) of a test in the file it names', () => {
    // `test/x.test.ts` (a note): "a test name" (a note), "another"
    const missing: string[] = [];
    let checked = 0;
    for (const m of page.matchAll(/`([^`\s]+\.ts)`(?: \([^)]*\))?:\s*((?:"[^"\n]+"(?: \([^)\n]*\))?(?:,\s*)?)+)/g)) {
      const [, path, quoted] = m;
      if (!existsSync(join(ROOT, path))) continue; // reported by the test of the paths
      for (const [, name] of quoted.matchAll(/"([^"\n]+)"/g)) {
        checked++;
        if (!titlesIn(path).some((title) => title.includes(name))) missing.push(`${path}: "${name}"`);
      }
    }
    assert.ok(checked > 100);
    assert.deepEqual(missing, [], `test names quoted in ${PAGE} but not in their file`);
  });

  test('every setting it names is contributed in package.json', () => {
    const settings = Object.keys((JSON.parse(contentOf('package.json')) as { contributes: { configuration: { properties: object } } }).contributes.configuration.properties);
    const named = [...new Set([...page.matchAll(/`(mcpTasks\.[\w.]+)`/g)].map((m) => m[1]))];
    assert.ok(named.length > 0);
    assert.deepEqual(named.filter((s) => !settings.includes(s)), [], `settings named in ${PAGE} but not contributed`);
  });
});
