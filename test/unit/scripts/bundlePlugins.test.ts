/**
 * The extension bundle's load-time plugins (scripts/lib/lazyParts.mjs): `vscode` copied onto one
 * namespace, not one per importing module (scripts/lib/vscodeOnce.mjs), and `node:crypto` /
 * `node:fs/promises` loaded at their first call, not when the bundle is evaluated
 * (scripts/lib/lazyBuiltins.mjs). Bench: "startup load + activation, no server".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { extensionBuilds } from '../../../scripts/lib/lazyParts.mjs';
import { lazyBuiltins } from '../../../scripts/lib/lazyBuiltins.mjs';
import { zodEnglishOnly } from '../../../scripts/lib/zodEnglishOnly.mjs';

const ROOT = join(__dirname, '..', '..', '..');
const COMMON: esbuild.BuildOptions = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'silent', mainFields: ['module', 'main'], plugins: [zodEnglishOnly] };

test('the extension bundle requires vscode once, and node:crypto and node:fs/promises only from their lazy getters', async () => {
  const builds = await extensionBuilds({ ...COMMON, plugins: [zodEnglishOnly] }, { root: ROOT });
  const out = (await esbuild.build({ ...builds.host, absWorkingDir: ROOT, write: false })).outputFiles![0]!.text;
  assert.equal(out.split('require("vscode")').length - 1, 1, 'one require("vscode") (one namespace copy)');
  for (const m of ['node:crypto', 'node:fs/promises']) {
    const at = [...out.matchAll(new RegExp(`.{0,12}require\\("${m.replace('/', '\\/')}"\\)`, 'g'))].map((x) => x[0]);
    assert.ok(at.length >= 1 && at.every((s) => s.includes('??=')), `${m}: ${JSON.stringify(at)}`);
  }
});

test('a lazy built-in is loaded at the first call of one of its functions, and works', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-builtins-'));
  try {
    writeFileSync(join(dir, 'entry.ts'), `import { createHash } from 'node:crypto';\nimport { stat } from 'node:fs/promises';\nconst loaded = (m: string) => process.moduleLoadList.includes('NativeModule ' + m);\nconst before = [loaded('crypto'), loaded('fs/promises')];\nconst hash = createHash('sha256').update('a').digest('hex').slice(0, 8);\nvoid stat(__filename).then((s) => console.log(JSON.stringify({ before, after: [loaded('crypto'), loaded('fs/promises')], hash, file: s.isFile() })));\n`);
    await esbuild.build({ ...COMMON, entryPoints: [join(dir, 'entry.ts')], outfile: join(dir, 'out.js'), plugins: [lazyBuiltins] });
    const r = JSON.parse(execFileSync(process.execPath, [join(dir, 'out.js')], { encoding: 'utf8' })) as { before: boolean[]; after: boolean[]; hash: string; file: boolean };
    assert.deepEqual(r, { before: [false, false], after: [true, true], hash: 'ca978112', file: true });
    // A function not listed fails the build: nothing is silently undefined.
    writeFileSync(join(dir, 'bad.ts'), `import { scryptSync } from 'node:crypto';\nconsole.log(scryptSync);\n`);
    await assert.rejects(esbuild.build({ ...COMMON, entryPoints: [join(dir, 'bad.ts')], outfile: join(dir, 'bad.js'), plugins: [lazyBuiltins] }), /No matching export/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
