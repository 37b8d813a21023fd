// `npm run bench`: bundles the benchmark (bench/*.ts + the project's core) with esbuild into
// dist/bench/, then runs it with `node --expose-gc` (heap figures need `global.gc()`).
// Env (full list at the top of bench/bench.ts): BENCH_N (receiver tasks, default 10000),
// BENCH_ROUNDS (A/B rounds, default 3), BENCH_RECEIVER_ROUNDS (default 7), BENCH_ROWS (e.g. "1,3" or
// "receiver,startup": bench/README.md names the sections).
// Extra arguments go to node (e.g. `npm run bench -- --cpu-prof`).
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE } from '../scripts/lib/bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Section 6 (`tasks-extension`) and the start-up rows start dist/demo-server.js: build the project's bundles first, so `npm ci && npm run bench`
// (and any BENCH_ROWS) works on a fresh clone and never measures a stale build.
const built = spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { stdio: 'inherit', cwd: root });
if (built.status !== 0) process.exit(built.status ?? 1);
const outdir = join(root, 'dist', 'bench');
await esbuild.build({
  entryPoints: ['bench/bench.ts', 'bench/receiverServerMain.ts', 'bench/requestorServerMain.ts', 'bench/rev2026ServerMain.ts', 'bench/activationMain.ts', 'bench/clientWorkMain.ts', 'bench/callRowsMain.ts'].map((p) => join(root, p)),
  outdir,
  ...NODE_BUNDLE,
  // Section 7 (`surface`) drives the real Tasks tree (src/ui/view/tasksTree.ts) with a few plain classes for `vscode`.
  alias: { vscode: join(root, 'test', 'helpers', 'vscodeClasses.ts') },
});
const extra = process.argv.slice(2);
const r = spawnSync(process.execPath, ['--expose-gc', ...extra, join(outdir, 'bench.js')], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
