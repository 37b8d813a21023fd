/**
 * The parts of the extension loaded at first need (scripts/lib/lazyParts.mjs): the extension
 * bundle holds none of a part's modules (so activation parses and evaluates none of them, and no
 * module exists twice), and the part is required from its own bundle at the first use — the forms
 * at the first form (src/ui/formsLoader.ts), built as esbuild.mjs builds them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { LAZY_HOST_OPTIONS, LAZY_PARTS } from '../../../scripts/lib/lazyParts.mjs';
import { zodEnglishOnly } from '../../../scripts/lib/zodEnglishOnly.mjs';

const ROOT = join(__dirname, '..', '..', '..');
const load = createRequire(__filename);

/** esbuild.mjs's options for every bundle. */
const COMMON: esbuild.BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'silent',
  mainFields: ['module', 'main'],
  absWorkingDir: ROOT,
  metafile: true,
};

/** The inputs of a build, as paths under the repository or node_modules (the shared install may be a link). */
function inputsOf(result: esbuild.BuildResult): string[] {
  return Object.keys(result.metafile!.inputs).map((p) => p.replace(/^(\.\.\/)+main\//, ''));
}

describe('parts of the extension loaded at first need', () => {
  test('the extension bundle holds no module of a part: the forms and RE2JS are not parsed at activation', async () => {
    const extension = await esbuild.build({ ...COMMON, entryPoints: ['src/extension.ts'], external: ['vscode'], write: false, ...LAZY_HOST_OPTIONS, plugins: [zodEnglishOnly, ...LAZY_HOST_OPTIONS.plugins] });
    const inExtension = new Set(inputsOf(extension));
    // Status texts only (no code of the forms): sampling and elicitation set them while waiting.
    const forms = [...inExtension].filter((p) => p.startsWith('src/core/forms/') && p !== 'src/core/forms/statusMessages.ts');
    assert.deepEqual(forms, []);
    assert.deepEqual([...inExtension].filter((p) => p.includes('node_modules/re2js/')), []);
    const output = extension.outputFiles![0]!.text;
    for (const part of LAZY_PARTS) {
      const file = part.outfile.split('/').pop()!;
      assert.ok(output.includes(`require("./${file}")`), `the extension requires ./${file} (not an ESM import())`);
      const built = await esbuild.build({ ...COMMON, entryPoints: [part.entry], write: false, plugins: [zodEnglishOnly] });
      const twice = inputsOf(built).filter((p) => inExtension.has(p));
      assert.deepEqual(twice, [], `${part.entry}: modules in both bundles`);
    }
  });

  test('the forms are required at the first form, once; a failed load is tried again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-lazy-'));
    try {
      // The loader as the extension bundles it, and the forms part beside it.
      await esbuild.build({
        ...COMMON,
        stdin: { contents: "export { loadForms } from './src/ui/formsLoader.ts';", resolveDir: ROOT, sourcefile: 'host.ts', loader: 'ts' },
        outfile: join(dir, 'host.js'),
        ...LAZY_HOST_OPTIONS,
      });
      const formsFile = join(dir, 'forms.js');
      const host = load(join(dir, 'host.js')) as { loadForms(): Promise<typeof import('../../../src/core/forms/elicitationForm.js')> };
      assert.equal(load.cache[formsFile], undefined, 'nothing of the forms before the first form');
      // Not built yet: the first form fails to load them, the next one loads them.
      await assert.rejects(host.loadForms(), /Cannot find module/);
      await esbuild.build({ ...COMMON, entryPoints: [LAZY_PARTS[0]!.entry], outfile: formsFile, plugins: [zodEnglishOnly] });
      const forms = await host.loadForms();
      assert.ok(load.cache[formsFile], 'loaded from dist/forms.js');
      assert.equal(await host.loadForms(), forms, 'loaded once');
      const form = forms.parseForm({ type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]+$' } }, required: ['code'] });
      assert.deepEqual(
        forms.validateAnswer(form, { code: 'ABC' }).map((p) => p.key),
        ['code'],
      );
      assert.deepEqual(forms.validateAnswer(form, { code: 'abc' }), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
