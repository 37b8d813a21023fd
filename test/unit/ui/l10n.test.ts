/**
 * Runtime strings of src/ui go through `vscode.l10n.t`: the committed
 * l10n/bundle.l10n.json is what the official exporter (@vscode/l10n-dev) extracts from src/ now,
 * every call gives a literal message with as many arguments as it has placeholders, the lint rule
 * (eslint.config.mjs, `USER_TEXT_SLOTS`) rejects bare text in user-facing slots and nothing else,
 * and a pseudo-localised bundle loaded through @vscode/l10n renders every message with its
 * arguments in place.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ESLint } from 'eslint';
import { getL10nJson, getL10nPseudoLocalized } from '@vscode/l10n-dev';
import * as l10n from '@vscode/l10n';
import { ROOT } from '../../helpers/host.js';

const SRC = join(ROOT, 'src');
const BUNDLE = join(ROOT, 'l10n', 'bundle.l10n.json');
const bundle = JSON.parse(readFileSync(BUNDLE, 'utf8')) as Record<string, string>;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { l10n?: string; scripts: Record<string, string> };

const sourceFiles = (readdirSync(SRC, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(SRC, f))
  .sort();

/** Every `vscode.l10n.t(…)` / `l10n.t(…)` call in src: where, its message (if a literal) and its number of arguments. */
interface Call {
  readonly at: string;
  readonly message?: string;
  readonly args: number;
}

function l10nCalls(): Call[] {
  const calls: Call[] = [];
  for (const file of sourceFiles) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 't') {
        const target = node.expression.expression;
        const isL10n = (ts.isPropertyAccessExpression(target) && target.name.text === 'l10n') || (ts.isIdentifier(target) && target.text === 'l10n');
        if (isL10n) {
          const first = node.arguments[0];
          const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          calls.push({
            at: `${relative(ROOT, file)}:${line}`,
            message: first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) ? first.text : undefined,
            args: node.arguments.length - 1,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return calls;
}

describe('l10n: runtime strings (vscode.l10n.t and l10n/bundle.l10n.json)', () => {
  const calls = l10nCalls();

  test('package.json names the bundle folder, ships it and has the export script', () => {
    assert.equal(manifest.l10n, './l10n');
    assert.match(manifest.scripts['l10n:export'] ?? '', /vscode-l10n-dev export --outDir \.\/l10n \.\/src/);
    const ignore = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(ignore.includes('!l10n/bundle.l10n*.json'), '.vscodeignore keeps the bundles in the .vsix');
  });

  test('src/ui localises through vscode.l10n.t (the survey below is not empty)', () => {
    assert.ok(calls.filter((c) => c.at.startsWith('src/ui/')).length > 200, `only ${calls.length} calls found`);
  });

  test('every message is a literal (the exporter reads only literals)', () => {
    const dynamic = calls.filter((c) => c.message === undefined).map((c) => c.at);
    assert.deepEqual(dynamic, []);
  });

  test('every message is in l10n/bundle.l10n.json, and every key there is used', () => {
    const used = new Set(calls.map((c) => c.message!));
    const missing = [...used].filter((m) => !(m in bundle));
    assert.deepEqual(missing, [], 'run `npm run l10n:export`');
    const stale = Object.keys(bundle).filter((k) => !used.has(k));
    assert.deepEqual(stale, [], 'run `npm run l10n:export`');
  });

  test('the committed bundle is what @vscode/l10n-dev exports from src/ now', async () => {
    const exported = await getL10nJson(sourceFiles.map((f) => ({ extension: '.ts', contents: readFileSync(f, 'utf8') })));
    assert.deepEqual(JSON.parse(JSON.stringify(exported)), bundle, 'run `npm run l10n:export`');
  });

  test('each call gives one argument per placeholder {0}…{n}, none missing or extra', () => {
    const wrong: string[] = [];
    for (const c of calls) {
      const indexes = [...(c.message ?? '').matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
      const expected = indexes.length ? Math.max(...indexes) + 1 : 0;
      const gaps = Array.from({ length: expected }, (_, i) => i).filter((i) => !indexes.includes(i));
      if (c.args !== expected || gaps.length) wrong.push(`${c.at}: ${c.args} argument(s) for ${JSON.stringify(c.message)}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('a pseudo-localised bundle loaded through @vscode/l10n renders every message, with its arguments in place', () => {
    const pseudo = getL10nPseudoLocalized(bundle) as Record<string, string>;
    l10n.config({ contents: pseudo });
    try {
      for (const key of Object.keys(bundle)) {
        const n = new Set([...key.matchAll(/\{(\d+)\}/g)].map((m) => m[1])).size;
        const args = Array.from({ length: n }, (_, i) => `«arg${i}»`);
        const out = l10n.t(key, ...args);
        assert.notEqual(out, key, `${key}: not translated by the bundle`);
        for (const a of args) assert.ok(out.includes(a), `${key}: ${a} missing in ${out}`);
        assert.doesNotMatch(out, /\{\d+\}/, `${key}: a placeholder is left in ${out}`);
      }
    } finally {
      l10n.config({ contents: {} });
    }
  });
});

describe('l10n: the lint rule against bare text in user-facing slots (eslint.config.mjs)', () => {
  // Linted as if it were a file of src/ui (it is not written anywhere).
  const fixture = [
    "import * as vscode from 'vscode';",
    "import { showError, showInfo } from './notify.js';",
    'declare const item: vscode.TreeItem, status: vscode.StatusBarItem, qp: vscode.QuickPick<vscode.QuickPickItem>, n: number, name: string;',
    "void showInfo('MCP Tasks: nothing to do.'); // BAD",
    'void showError(`Sign-in to "${name}" failed.`); // BAD',
    "void showInfo(n ? 'one' : vscode.l10n.t('two')); // BAD",
    "void showInfo(vscode.l10n.t('MCP Tasks: {0} failed.', name), vscode.l10n.t('Retry'));",
    "void showInfo(vscode.l10n.t('x'), { modal: true, detail: 'It runs this program.' }); // BAD",
    "item.description = 'not configured'; // BAD",
    "item.tooltip = vscode.l10n.t('{0}: no longer configured', name);",
    'status.text = `$(sync~spin) ${n}`;',
    'status.text = `$(error) ${n} servers`; // BAD',
    "qp.placeholder = 'Listing tools…'; // BAD",
    "void vscode.window.showQuickPick([], { placeHolder: 'Start which server?' }); // BAD",
    "void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in…') }, async () => undefined);",
    "void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Signing in to ${name}…` }, async () => undefined); // BAD",
    "new vscode.TreeItem('No task yet'); // BAD",
    'new vscode.TreeItem(name);',
    "class E extends Error { constructor() { super('The prompt was cancelled'); this.name = 'PromptCancelledError'; } }",
    "if (name === 'needs sign in') void showInfo(vscode.l10n.t('x'));",
    "export const statusMessage = 'Cancelled by the user';",
    'export { E };',
  ].join('\n');

  test('flags exactly the lines marked BAD', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintText(fixture, { filePath: join(ROOT, 'src', 'ui', 'l10nLintFixture.ts') });
    const flagged = [...new Set(result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax' && /vscode\.l10n\.t/.test(m.message)).map((m) => m.line))].sort((a, b) => a - b);
    const bad = fixture
      .split('\n')
      .map((l, i) => (l.endsWith('// BAD') ? i + 1 : 0))
      .filter(Boolean);
    assert.deepEqual(flagged, bad);
    assert.deepEqual(result!.messages.filter((m) => m.fatal), [], 'the fixture parses');
  });
});
