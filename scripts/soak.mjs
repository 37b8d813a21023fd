// `npm run soak -- <minutes>`: builds the fixtures (node esbuild.mjs), bundles bench/soak.ts into
// dist/bench/soak.js and runs it for <minutes> (default 2). Env: SOAK_SEED (repeat a schedule).
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE } from './lib/bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { stdio: 'inherit', cwd: root });
if (built.status !== 0) process.exit(built.status ?? 1);
await esbuild.build({
  entryPoints: [join(root, 'bench/soak.ts')],
  outdir: join(root, 'dist', 'bench'),
  ...NODE_BUNDLE,
});
const r = spawnSync(process.execPath, [join(root, 'dist', 'bench', 'soak.js'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
