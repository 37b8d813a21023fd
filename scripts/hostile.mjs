// `npm run hostile`: builds the fixtures (node esbuild.mjs), bundles bench/hostile.ts into
// dist/bench/hostile.js and runs it. Env: HOSTILE_ONLY (regex on attack names), HOSTILE_VERBOSE=1.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE } from './lib/bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { stdio: 'inherit', cwd: root });
if (built.status !== 0) process.exit(built.status ?? 1);
await esbuild.build({
  entryPoints: [join(root, 'bench/hostile.ts')],
  outdir: join(root, 'dist', 'bench'),
  ...NODE_BUNDLE,
});
const r = spawnSync(process.execPath, [join(root, 'dist', 'bench', 'hostile.js')], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
