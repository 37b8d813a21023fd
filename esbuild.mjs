// Bundles the extension, the headless conformance client, the demo server and the
// extension-host test suite. `node esbuild.mjs [--production] [--watch]`.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { zodEnglishOnly } from './scripts/lib/zodEnglishOnly.mjs';
import { extensionBuilds } from './scripts/lib/lazyParts.mjs';

/** Files under `dir` (recursively) whose name ends with `suffix`. */
function filesEndingWith(dir, suffix) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  // The SDK ships both ESM and CJS; prefer the CJS build inside a CJS bundle.
  mainFields: ['module', 'main'],
  plugins: [zodEnglishOnly],
};

// The extension (`vscode` is provided by the extension host) and the parts it loads at first need (scripts/lib/lazyParts.mjs).
const extension = await extensionBuilds(common, { root: process.cwd() });
const builds = [
  // The extension's entry (package.json `main`): it loads extension.js through the code cache (src/core/startup/codeCache.ts).
  { ...common, entryPoints: ['src/start.ts'], outfile: 'dist/start.js', external: ['vscode'] },
  extension.host,
  ...extension.parts,
  // Node programs built from src/core only (no vscode).
  { ...common, entryPoints: ['src/headless/main.ts'], outfile: 'dist/headless-client.js' },
  // The server host: stdio servers that outlive a window (src/core/serverHost/), a process of its own.
  { ...common, entryPoints: ['src/core/serverHost/main.ts'], outfile: 'dist/serverHost.js' },
  { ...common, entryPoints: ['examples/demo-server/server.ts'], outfile: 'dist/demo-server.js' },
];
if (!production) {
  // The compiled extension-host suite is rebuilt from scratch: a deleted test must not keep running.
  // (Fixtures are only overwritten: integration tests may be running them while another test builds.)
  rmSync('dist/test/vscode', { recursive: true, force: true });
  // The extension-host test suite (mocha runs inside VS Code's extension host).
  builds.push({
    ...common,
    entryPoints: [
      'test/vscode/index.ts',
      'test/vscode/afterReload.ts',
      'test/vscode/restricted.ts',
      ...filesEndingWith('test/vscode/suite', '.test.ts'),
      ...filesEndingWith('test/vscode/beforeReload', '.test.ts'),
      ...filesEndingWith('test/vscode/afterReload', '.test.ts'),
      ...filesEndingWith('test/vscode/restricted', '.test.ts'),
    ],
    outdir: 'dist/test/vscode',
    outbase: 'test/vscode',
    // The SDK v1 (the OAuth fixture's server) is read from node_modules, not bundled: bundled beside
    // src modules that require() their zod schemas at first need (scripts/lib/lazyParts.mjs), esbuild
    // wraps zod for lazy evaluation and the SDK's top-level schemas ran before it ("Class2 is not a
    // constructor" loading the sign-in suites).
    external: ['vscode', 'mocha', '@modelcontextprotocol/sdk'],
  });
  // Test fixture servers, bundled so integration tests start them with plain `node` (fast).
  builds.push({ ...common, entryPoints: filesEndingWith('test/fixtures', '.ts'), outdir: 'dist/fixtures', outbase: 'test/fixtures' });
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching…');
} else {
  const started = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`[esbuild] ${builds.length} bundles in ${Date.now() - started} ms${production ? ' (production)' : ''}`);
}
