/**
 * The estimate of a pattern's compiled size (forms/patternCost.ts) decides whether a server's
 * pattern is compiled at all: it must never be smaller than what RE2JS itself compiles, else a
 * pattern could slip under the bound and cost seconds to compile and to check.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RE2JS } from 're2js';
import { estimateProgramSize } from '../../../src/core/forms/patternCost.js';

/** Patterns seen in tool schemas, RE2 syntax corners, and the expansions RE2 makes of counted repetition. */
const CORPUS = [
  '^[a-z0-9_-]+$',
  '^\\d{3}-\\d{4}$',
  '^(a|a)+$',
  '^(?<year>\\d{4})$',
  '^\\p{L}+$',
  '^\\u{1F600}$',
  "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$',
  '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  '^(?:[a-z]{1,10}){1,10}$',
  '^(?:[a-z]{1,30}){1,30}$',
  '^[a-z]{1,1000}$',
  '^.{1,255}$',
  '(a{2}){3}',
  '((((a{3}){3}){3}){3})',
  '(?:(a)|(b)){0,100}!',
  'x{0,}',
  'x{5,}',
  'x{,5}',
  'a{1000}',
  'a{1000,}',
  '(?:a{0,1000}|b)',
  '\\Qa.b{3}\\E{5}',
  '[]a]{50}',
  '[^]a]{50}',
  '[[:alpha:]]{50}',
  '\\x{41}{50}',
  '\\pL{50}',
  '(?i)abc{50}',
  '(?i:ab){40}',
  'a{2,5}?b*?c+?d??',
  '\\b\\B^$\\A\\z',
  '',
  'a|b|c|d',
  `^${'[a-z]{1,1000}'.repeat(69)}a\\d$`,
  '(?:a|b){0,999}'.repeat(3),
];

/** A seeded generator (the same patterns every run): atoms, groups, alternations and every quantifier. */
function randomPatterns(count: number, seed: number): string[] {
  let s = seed;
  const r = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const atoms = ['a', 'b', '.', '[a-z]', '[^x]', '\\d', '\\w', '\\pL', '\\x{41}', '(?:ab)', '\\b', '^', '$', 'é', '😀', '\\Qx|y\\E', '{', '[]|)]'];
  const gen = (depth: number): string => {
    let out = '';
    for (let i = 0, n = 1 + Math.floor(r() * 4); i < n; i++) {
      let a = depth > 0 && r() < 0.4 ? `${pick(['(', '(?:', `(?P<n${i}${depth}>`])}${gen(depth - 1)}${r() < 0.3 ? `|${gen(depth - 1)}` : ''})` : pick(atoms);
      const q = r();
      if (q < 0.15) a += '*';
      else if (q < 0.25) a += '+';
      else if (q < 0.35) a += '?';
      else if (q < 0.5) a += `{${Math.floor(r() * 12)}}`;
      else if (q < 0.6) a += `{${Math.floor(r() * 8)},}`;
      else if (q < 0.75) {
        const lo = Math.floor(r() * 6);
        a += `{${lo},${lo + Math.floor(r() * 8)}}`;
      }
      if (r() < 0.1) a += '?';
      out += a;
    }
    return out;
  };
  return Array.from({ length: count }, () => gen(3));
}

describe('estimateProgramSize', () => {
  test('never less than the program RE2JS compiles (a corpus and 3,000 generated patterns)', () => {
    let compared = 0;
    const under: string[] = [];
    for (const pattern of [...CORPUS, ...randomPatterns(3000, 42)]) {
      const translated = RE2JS.translateRegExp(pattern);
      const estimate = estimateProgramSize(translated);
      if (estimate > 5_000) continue; // compiling those is what the estimate spares us (and slow)
      let size: number;
      try {
        size = RE2JS.compile(translated).programSize();
      } catch {
        continue; // invalid in RE2: refused before anything is expanded
      }
      compared++;
      if (estimate < size) under.push(`${JSON.stringify(pattern)}: estimate ${estimate} < ${size}`);
    }
    assert.deepEqual(under, []);
    assert.ok(compared > 1500, `${compared} patterns compiled and compared`);
  });

  test('close enough for ordinary patterns, huge for what RE2 expands', () => {
    const est = (p: string) => estimateProgramSize(RE2JS.translateRegExp(p));
    assert.ok(est('^[a-z0-9_-]+$') < 20);
    assert.ok(est(CORPUS[6]!) < 300, 'the email pattern (259 instructions)');
    // The 902-character pattern of the report: 137,935 instructions.
    assert.ok(est(`^${'[a-z]{1,1000}'.repeat(69)}a\\d$`) > 130_000);
    // Nested repetition multiplies; a `{` that is no repetition is one character; `\x{…}` is one atom.
    assert.ok(est('(?:(?:a{1,100}){1,100}){1,100}') > 1_000_000);
    assert.ok(est('a{,100}') < 20);
    assert.ok(est('\\x{1000}') < 20);
  });

  test('a pattern nested as deep as the length cap allows is read without trouble', () => {
    const deep = `${'('.repeat(500)}a{1000}${')'.repeat(500)}`;
    assert.ok(estimateProgramSize(deep) >= RE2JS.compile(deep).programSize());
  });
});
