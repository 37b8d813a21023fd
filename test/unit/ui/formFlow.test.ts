/**
 * The quick-input form (src/ui/prompts/formFlow.ts) in plain Node (`vscode` faked: test/helpers/vscodeFake.ts
 * with quickInputFake.ts): its fields' checks and the review come from the forms module, loaded at the
 * first form (src/ui/prompts/formsLoader.ts) — a value that breaks the server's pattern keeps its step open,
 * and the review returns what was entered.
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CancellationTokenSource } from '../../helpers/vscodeClasses.js';
import { FakeInputBox, FakeQuickPick, quickInputs } from '../../helpers/quickInputFake.js';
import { runFormFlow } from '../../../src/ui/prompts/formFlow.js';
import { loadForms } from '../../../src/ui/prompts/formsLoader.js';

const isInput = (q: unknown): q is FakeInputBox => q instanceof FakeInputBox;
const isPick = (placeholder: RegExp) => (q: unknown): q is FakeQuickPick<{ label: string }> => q instanceof FakeQuickPick && placeholder.test(q.placeholder ?? '');

describe('form flow', () => {
  test('a field checked against the server\'s pattern, an enum, then the review', async () => {
    quickInputs.reset();
    const { parseForm } = await loadForms();
    const form = parseForm({
      type: 'object',
      properties: {
        code: { type: 'string', title: 'Code', pattern: '^[a-z]+$' },
        size: { type: 'string', title: 'Size', enum: ['small', 'large'] },
      },
      required: ['code'],
    });
    assert.equal(form.unsupported, undefined);
    const cts = new CancellationTokenSource();
    const result = runFormFlow(form, { title: 'Test form', token: cts.token as never });

    const code = await quickInputs.when(isInput);
    assert.match(code.prompt ?? '', /^Code: /);
    code.type('ABC');
    assert.match(code.validationMessage ?? '', /pattern/);
    code.accept();
    assert.equal(quickInputs.current(), code, 'a value that breaks the pattern keeps the step open');
    code.type('abc');
    assert.equal(code.validationMessage, undefined);
    code.accept();

    const size = await quickInputs.when(isPick(/Size/));
    size.pick('large');

    const review = await quickInputs.when(isPick(/Review/));
    assert.ok(review.items.some((i) => /Code/.test(i.label)));
    review.pick(/Accept/);
    assert.deepEqual(await result, { action: 'accept', content: { code: 'abc', size: 'large' } });
  });
});
