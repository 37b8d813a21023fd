import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { plainLabel, quoteText } from '../../../src/core/base/quote.js';

describe('workspace text on plain-text surfaces (dialogs, quick picks)', () => {
  test('quoteText: one quoted line; line breaks, bidi overrides and zero-width characters show as escapes', () => {
    assert.equal(quoteText('github'), '"github"');
    assert.equal(quoteText('a\nb\r\u2028c'), '"a\\nb\\r\\u2028c"');
    assert.equal(quoteText('x\u202Eevil\u200B'), '"x\\u202Eevil\\u200B"');
    assert.equal(quoteText('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"');
    assert.equal(quoteText('naïve 名前'), '"naïve 名前"', 'ordinary non-ASCII text stays readable');
  });

  test('plainLabel: no theme icon is drawn from a name, and it stays on one line', () => {
    assert.equal(plainLabel('$(pass-filled) github (verified)'), '\\$(pass-filled) github (verified)');
    assert.equal(plainLabel('$(sync~spin)'), '\\$(sync~spin)');
    assert.equal(plainLabel('already \\$(x) escaped'), 'already \\$(x) escaped');
    assert.equal(plainLabel('costs $(5) or $ (x)'), 'costs \\$(5) or $ (x)');
    assert.equal(plainLabel('two\nlines'), 'two\\u000Alines');
    assert.equal(plainLabel('plain name'), 'plain name');
  });
});
