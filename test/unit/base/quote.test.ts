import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { plainLabel, quoteLabel, quoteText } from '../../../src/core/base/quote.js';

describe('workspace text on plain-text surfaces (dialogs, quick picks)', () => {
  test('quoteText: one quoted line; line breaks, bidi overrides and zero-width characters show as escapes', () => {
    assert.equal(quoteText('github'), '"github"');
    assert.equal(quoteText('a\nb\r\u2028c'), '"a\\nb\\r\\u2028c"');
    assert.equal(quoteText('x\u202Eevil\u200B'), '"x\\u202Eevil\\u200B"');
    assert.equal(quoteText('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"');
    assert.equal(quoteText('naïve 名前'), '"naïve 名前"', 'ordinary non-ASCII text stays readable');
  });

  test('quoteLabel: readable quotes (no backslash before the text\'s own quotes), still one line that cannot close its quote early', () => {
    assert.equal(quoteLabel('Elicitation: type "cancel palette"'), '\u201CElicitation: type "cancel palette"\u201D');
    assert.equal(quoteLabel('a\\b'), '\u201Ca\\b\u201D');
    assert.equal(quoteLabel('x\u201D and its request\u201C'), '\u201Cx\\u201D and its request\\u201C\u201D', 'its own typographic quotes show as escapes');
    assert.equal(quoteLabel('two\nlines $(pass)'), '\u201Ctwo\\u000Alines \\$(pass)\u201D');
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
