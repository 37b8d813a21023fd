/**
 * A server's `pattern` (a tool's input schema, an elicitation schema) is checked as the user types
 * and against a default at once, on the extension host's only thread: it must run in time linear
 * in the input whatever the pattern (forms/validation.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { checkValue } from '../../../src/core/forms/validation.js';
import { MAX_PATTERN_CHARS, MAX_PATTERN_INPUT_CHARS } from '../../../src/core/forms/patterns.js';
import { validateField } from '../../../src/core/forms/fieldInput.js';
import { parseForm } from '../../../src/core/forms/schema.js';
import type { FormField } from '../../../src/core/forms/formTypes.js';
import { ROOT } from '../../helpers/host.js';

const field = (pattern: string): FormField => ({ key: 'v', kind: 'string', required: true, pattern });

describe('server patterns', () => {
  test('a catastrophic pattern against a long value is answered (a backtracking engine would take 2^60 steps)', () => {
    // In a child process, so that the old engine's hang is reported as a failure rather than
    // stopping the test run; the bound below is only that, never a measure of speed.
    const script = `
      const { checkValue } = require(${JSON.stringify(join(ROOT, 'src/core/forms/validation.ts'))});
      const { parseForm } = require(${JSON.stringify(join(ROOT, 'src/core/forms/schema.ts'))});
      const form = parseForm({ type: 'object', properties: { v: { type: 'string', pattern: '^(a|a)+$', default: 'a'.repeat(60) + '!' } } }, { source: 'tool' });
      const f = form.fields[0];
      process.stdout.write(JSON.stringify([checkValue(f, f.default), checkValue(f, 'a'.repeat(5000))]));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.signal, null, 'the check hung (killed after 60 s)');
    assert.deepEqual(JSON.parse(r.stdout), ['Must match the pattern ^(a|a)+$', null]);
  });

  test('ordinary patterns are enforced as JSON Schema (ECMA-262) reads them: unanchored search, classes, quantifiers, named groups, Unicode', () => {
    assert.equal(checkValue(field('\\d{3}-\\d{4}'), 'call 555-1234'), undefined);
    assert.equal(checkValue(field('^\\d{3}-\\d{4}$'), 'call 555-1234'), 'Must match the pattern ^\\d{3}-\\d{4}$');
    assert.equal(checkValue(field('^[a-z][a-z0-9_-]*$'), 'deploy_1'), undefined);
    assert.equal(checkValue(field('^[a-z][a-z0-9_-]*$'), '1deploy'), 'Must match the pattern ^[a-z][a-z0-9_-]*$');
    assert.equal(checkValue(field('^(?<year>\\d{4})$'), '2025'), undefined);
    assert.equal(checkValue(field('^\\p{L}+$'), 'héllo'), undefined);
    assert.equal(checkValue(field('^\\p{L}+$'), 'h3llo'), 'Must match the pattern ^\\p{L}+$');
    assert.equal(checkValue(field('^\\u{1F600}$'), '😀'), undefined);
    assert.deepEqual(validateField(field('^v\\d+$'), 'v12'), { ok: true, value: 'v12' });
    assert.equal(validateField(field('^v\\d+$'), 'x12').ok, false);
  });

  test('not checked (the server still validates): what RE2 cannot express, invalid patterns, a pattern or a value past its length cap', () => {
    assert.equal(checkValue(field('^(a)\\1$'), 'ab'), undefined, 'a backreference');
    assert.equal(checkValue(field('^(?=x)y$'), 'z'), undefined, 'a lookahead');
    assert.equal(checkValue(field('(unclosed'), 'z'), undefined, 'invalid');
    assert.equal(checkValue(field(`^${'a'.repeat(MAX_PATTERN_CHARS)}$`), 'b'), undefined, 'a pattern too long');
    assert.equal(checkValue(field('^a+$'), 'a'.repeat(MAX_PATTERN_INPUT_CHARS) + '!'), undefined, 'a value too long to check');
    assert.equal(checkValue(field('^a+$'), 'a'.repeat(MAX_PATTERN_INPUT_CHARS - 1) + '!'), 'Must match the pattern ^a+$', 'just under the cap it is checked');
  });

  test('a tool schema keeps its pattern and default: the default is checked (and kept only if it matches)', () => {
    const form = parseForm({ type: 'object', properties: { v: { type: 'string', pattern: '^(a|a)+$', default: 'aaaa' } } }, { source: 'tool' });
    const f = form.fields[0]!;
    assert.equal(f.kind === 'string' && f.pattern, '^(a|a)+$');
    assert.equal(checkValue(f, 'aaaa'), undefined);
  });
});
