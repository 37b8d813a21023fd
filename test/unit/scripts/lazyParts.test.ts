/**
 * The parts of the extension loaded at first need (scripts/lib/lazyParts.mjs), built as esbuild.mjs
 * builds them: the extension's bundle holds no module of a part and none of the SDK, zod, OAuth's
 * libraries or RE2JS (so activation parses and evaluates none of them; test/integration/startup
 * checks what activation evaluates), every module exists once (a shared part reads the extension's
 * own), and a part is required from its own bundle at its first use.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { LAZY_PARTS, extensionBuilds, hostPlugin } from '../../../scripts/lib/lazyParts.mjs';
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
  plugins: [zodEnglishOnly],
};

/** The file inputs of a build, as paths under the repository or node_modules (the shared install may be a link). */
function inputsOf(result: esbuild.BuildResult): string[] {
  return Object.keys(result.metafile!.inputs)
    .filter((p) => !/^[a-z-]+:/.test(p))
    .map((p) => p.replace(/^(\.\.\/)+main\//, ''));
}

/** What activation must not parse or evaluate: the SDK, zod, OAuth's libraries, the forms' RE2JS, the JSONC parser. */
const NOT_AT_ACTIVATION = /node_modules\/(@modelcontextprotocol\/|zod\/|jose\/|pkce-challenge\/|eventsource|ajv|re2js\/|jsonc-parser\/)/;

describe('parts of the extension loaded at first need', () => {
  test('the extension bundle holds no module of a part, nothing of the SDK, zod, OAuth or RE2JS; each module exists once', async () => {
    const builds = await extensionBuilds({ ...COMMON, plugins: [zodEnglishOnly] }, { root: ROOT });
    const build = (o: esbuild.BuildOptions) => esbuild.build({ ...o, absWorkingDir: ROOT, write: false, metafile: true });
    const extension = await build(builds.host);
    const inExtension = new Set(inputsOf(extension));
    assert.deepEqual([...inExtension].filter((p) => NOT_AT_ACTIVATION.test(p)), []);
    // Status texts only (no code of the forms): sampling and elicitation set them while waiting.
    assert.deepEqual([...inExtension].filter((p) => p.startsWith('src/core/forms/') && p !== 'src/core/forms/statusMessages.ts'), []);
    const output = extension.outputFiles![0]!.text;
    for (const [i, part] of LAZY_PARTS.entries()) {
      const file = part.outfile.split('/').pop()!;
      for (const served of part.serves) assert.ok(!inExtension.has(served), `${served} is ${file}'s, not the extension's (imported statically somewhere?)`);
      assert.ok(output.includes(`require("./${file}")`), `the extension requires ./${file} (not an ESM import())`);
      const built = await build(builds.parts[i]!);
      assert.deepEqual(
        inputsOf(built).filter((p) => inExtension.has(p)),
        [],
        `${file}: modules in both bundles`,
      );
      if (part.shared) assert.ok(built.outputFiles![0]!.text.includes('require.cache[require.resolve("./extension.js")]'), `${file} reads the extension's modules from the loaded extension`);
    }
    // The protocol part holds the SDK; what it reads from the extension is there.
    const protocol = await build(builds.parts[LAZY_PARTS.findIndex((p) => p.name === 'protocol')]!);
    assert.ok(inputsOf(protocol).some((p) => p.includes('node_modules/@modelcontextprotocol/client/')));
    for (const shared of builds.shared) assert.ok(inExtension.has(shared.replace(/^(\.\.\/)+main\//, '')), `${shared} is in the extension`);
  });

  test('the forms are required at the first form, once; a failed load is tried again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-lazy-'));
    try {
      // The loader as the extension bundles it, and the forms part beside it.
      await esbuild.build({
        ...COMMON,
        absWorkingDir: ROOT,
        stdin: { contents: "export { loadForms } from './src/ui/prompts/formsLoader.ts';", resolveDir: ROOT, sourcefile: 'host.ts', loader: 'ts' },
        outfile: join(dir, 'host.js'),
        supported: { 'dynamic-import': false },
        plugins: [zodEnglishOnly, hostPlugin(ROOT)],
      });
      const formsFile = join(dir, 'forms.js');
      const host = load(join(dir, 'host.js')) as { loadForms(): Promise<typeof import('../../../src/core/forms/elicitationForm.js')> };
      assert.equal(load.cache[formsFile], undefined, 'nothing of the forms before the first form');
      // Not built yet: the first form fails to load them, the next one loads them.
      await assert.rejects(host.loadForms(), /Cannot find module/);
      await esbuild.build({ ...COMMON, absWorkingDir: ROOT, entryPoints: [LAZY_PARTS[0]!.serves[0]!], outfile: formsFile });
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
