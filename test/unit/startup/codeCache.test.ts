/**
 * The code cache the extension's entry loads its bundles through (src/core/startup/codeCache.ts):
 * real bundles in a temporary folder, compiled by V8 from their text or from a cache file. A window
 * whose outcome depends on the cache file runs in a process of its own (codeCacheWindow.ts): V8
 * keeps what it compiled in memory for a process's life, so a second load in one process would
 * not read the file at all.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeCache, WRITE_DELAY_MS } from '../../../src/core/startup/codeCache.js';

const moduleCache = createRequire(__filename).cache;

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-code-cache-'));
  cacheDir = join(dir, 'storage', 'code-cache');
});
afterEach(() => {
  for (const key of Object.keys(moduleCache)) if (key.startsWith(dir)) delete moduleCache[key];
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a bundle; `mtimeS` sets its modification time (seconds), so two versions never share one. */
function bundle(name: string, text: string, mtimeS?: number): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  if (mtimeS !== undefined) utimesSync(file, mtimeS, mtimeS);
  return file;
}

interface WindowRun {
  readonly outcomes: Record<string, string>;
  readonly exports: Record<string, Record<string, unknown>>;
  readonly parts: Record<string, unknown>;
  readonly lastProblem: string | null;
}

/** A window in a process of its own: loads `files` through a CodeCache on the cache folder, then goes (writing its caches). */
function window(...files: string[]): WindowRun {
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(__dirname, 'codeCacheWindow.ts'), cacheDir, ...files], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as WindowRun;
}

const cacheFiles = () => {
  try {
    return readdirSync(cacheDir).sort();
  } catch {
    return [];
  }
};

describe('CodeCache', () => {
  test('a first window loads through Node and writes a first cache as it goes; the next compiles from it and writes it again with what it ran; later ones only read', () => {
    const file = bundle('extension.js', 'exports.answer = 6 * 7; exports.inModuleCache = require.cache[__filename] === module && module.id === __filename;');
    const c = new CodeCache(cacheDir);
    const a = c.load(file) as { answer: number; inModuleCache: boolean };
    assert.equal(a.answer, 42);
    assert.equal(a.inModuleCache, true);
    assert.equal(c.load(file), a, 'loaded once');
    assert.equal(c.outcomes.get(file), 'missing');
    assert.deepEqual(cacheFiles(), [], 'nothing is written while activation runs');
    c.dispose();
    assert.deepEqual(c.problems, []);
    assert.deepEqual(cacheFiles().map((f) => f.replace(/-[\w.]+-\d+-\d+/, '-KEY')), ['extension-KEY.first.bin']);

    const second = window(file);
    assert.deepEqual(second.outcomes, { [file]: 'used' });
    assert.deepEqual(second.exports[file], { answer: 42, inModuleCache: true }, 'compiled here, the bundle is in the module cache under its own path, as `require` keeps it');
    assert.equal(second.lastProblem, null);
    assert.deepEqual(cacheFiles().map((f) => f.replace(/-[\w.]+-\d+-\d+/, '-KEY')), ['extension-KEY.bin'], 'the cache after a run replaced the first one');
    const full = readFileSync(join(cacheDir, cacheFiles()[0]!));

    const third = window(file);
    assert.deepEqual(third.outcomes, { [file]: 'used' });
    assert.deepEqual(readFileSync(join(cacheDir, cacheFiles()[0]!)), full, 'a window that used the cache after a run writes nothing');
  });

  test('a changed bundle of the same length never runs the code cached for the old one (V8 alone compares lengths only)', () => {
    const file = bundle('extension.js', 'exports.version = "1111";', 1_700_000_000);
    assert.deepEqual(window(file).outcomes, { [file]: 'missing' });
    assert.deepEqual(window(file).outcomes, { [file]: 'used' });
    bundle('extension.js', 'exports.version = "2222";', 1_700_000_100);
    const updated = window(file);
    assert.deepEqual(updated.exports[file], { version: '2222' });
    assert.deepEqual(updated.outcomes, { [file]: 'missing' });
  });

  test('a cache V8 refuses (damaged) is compiled around and replaced; only the two newest caches of a bundle are kept', () => {
    const file = bundle('extension.js', 'exports.n = 7;', 1_700_000_000);
    window(file);
    window(file);
    const [name] = cacheFiles();
    assert.match(name!, /^extension-.*\d\.bin$/);
    writeFileSync(join(cacheDir, name!), Buffer.from('not what V8 wrote'));
    const damaged = window(file);
    assert.deepEqual(damaged.exports[file], { n: 7 });
    assert.deepEqual(damaged.outcomes, { [file]: 'refused' });
    assert.notEqual(readFileSync(join(cacheDir, name!)).toString(), 'not what V8 wrote', 'the refused cache was written anew');
    assert.deepEqual(window(file).outcomes, { [file]: 'used' });

    // Three more versions: the newest two stay, and another bundle's cache is not touched.
    const other = bundle('protocol.js', 'exports.p = 1;');
    window(other);
    for (const [i, when] of [1_700_000_200, 1_700_000_300, 1_700_000_400].entries()) {
      bundle('extension.js', `exports.n = ${i};`, when);
      assert.deepEqual(window(file).exports[file], { n: i });
    }
    const left = cacheFiles();
    assert.equal(left.filter((f) => f.startsWith('extension-')).length, 2, left.join(', '));
    assert.ok(left.some((f) => f.endsWith(`-${1_700_000_400_000}.first.bin`)), 'the newest is kept');
    assert.equal(left.filter((f) => f.startsWith('protocol-')).length, 1);
  });

  test('a part the bundle required gets a first cache too, even one first needed after the bundle\'s cache was written; in a later window it loads through the cache and finds the loaded bundle in the module cache', () => {
    const host = bundle('extension.js', 'exports.shared = { x: 1 }; exports.part = () => { const p = require("./part.js"); return { sameShared: p.shared === exports.shared, path: p.path }; };');
    const part = bundle('part.js', 'const host = require.cache[require.resolve("./extension.js")]; exports.shared = host.exports.shared; exports.path = require("node:path").basename(__filename);');
    const c = new CodeCache(cacheDir);
    const ext = c.load(host) as { part(): unknown };
    c.flush();
    assert.deepEqual(cacheFiles().map((f) => f.split('-')[0]), ['extension'], 'written after activation, before the part was needed');
    assert.deepEqual(ext.part(), { sameShared: true, path: 'part.js' });
    c.dispose();
    assert.deepEqual(cacheFiles().map((f) => f.split('-')[0]), ['extension', 'part'], 'the part Node loaded for the bundle later has its first cache once the window goes');

    const later = window(host);
    assert.deepEqual(later.parts[host], { sameShared: true, path: 'part.js' }, 'the part reads the one loaded instance');
    assert.deepEqual(later.outcomes, { [host]: 'used', [part]: 'used' });
    assert.equal(later.lastProblem, null);
  });

  test('the cache is written after the delay, once', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const file = bundle('extension.js', 'exports.ok = true;');
      const c = new CodeCache(cacheDir);
      c.load(file);
      mock.timers.tick(WRITE_DELAY_MS - 1);
      assert.deepEqual(cacheFiles(), []);
      mock.timers.tick(1);
      assert.equal(cacheFiles().length, 1);
      c.dispose();
      assert.equal(cacheFiles().length, 1);
    } finally {
      mock.timers.reset();
    }
  });

  test('a folder that cannot be written: the bundle loads as Node loads it, and the cache says why, without throwing', () => {
    writeFileSync(join(dir, 'storage'), 'a file where the storage folder should be');
    const file = bundle('extension.js', 'exports.ok = true;');
    const c = new CodeCache(cacheDir);
    const told: string[] = [];
    const listening = c.onProblem((p) => told.push(p));
    c.onProblem(() => {
      throw new Error('a log already closed');
    });
    assert.equal((c.load(file) as { ok: boolean }).ok, true);
    c.flush();
    assert.equal(told.length, 1, 'the one reason, told as it happens (the extension logs it)');
    assert.match(told[0]!, /^writing .*code-cache.*(EEXIST|ENOTDIR)/);
    assert.deepEqual(c.problems, told, 'and kept for a listener that comes later');
    listening.dispose();
    c.dispose();
    assert.equal(told.length, 1, 'a listener gone is told nothing more');
  });

  test('no folder: loaded by Node, nothing written', () => {
    const file = bundle('extension.js', 'exports.ok = true;');
    const c = new CodeCache(undefined);
    assert.equal((c.load(file) as { ok: boolean }).ok, true);
    assert.equal(c.outcomes.get(file), 'off');
    c.dispose();
    assert.deepEqual(cacheFiles(), []);
  });

  test('a bundle that throws while it runs is not kept: its error reaches the caller, and a later load runs it again', () => {
    const file = bundle('extension.js', 'globalThis.__codeCacheRuns = (globalThis.__codeCacheRuns ?? 0) + 1; throw new Error("broken bundle");');
    const c = new CodeCache(cacheDir);
    try {
      assert.throws(() => c.load(file), /broken bundle/);
      assert.equal(moduleCache[file], undefined);
      assert.throws(() => c.load(file), /broken bundle/);
      assert.equal((globalThis as { __codeCacheRuns?: number }).__codeCacheRuns, 2);
    } finally {
      delete (globalThis as { __codeCacheRuns?: number }).__codeCacheRuns;
      c.dispose();
    }
  });
});
