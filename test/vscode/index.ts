// Entry point of the extension-host test suite, loaded by VS Code as `extensionTestsPath`
// (both by `scripts/vscode-offline.mjs` in code-server and by `test/vscode/runElectron.mjs`).
// Runs mocha (TDD interface: `suite`/`test`/`setup`/`teardown`/`suiteSetup`/`suiteTeardown`)
// over every compiled `*.test.js` under this folder and rejects when any test fails.
//
// Environment (inherited by the extension host from the runner):
//   MCP_TASKS_E2E_GREP     only run tests whose full title matches this regular expression
//   MCP_TASKS_E2E_TIMEOUT  per-test timeout in ms (default 20000)
import * as fs from 'node:fs';
import * as path from 'node:path';

type MochaCtor = typeof import('mocha');

/** Compiled test files (`*.test.js`) below `dir`, sorted for a stable order. */
function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .sort();
}

/** Runs every test file under `folder` (relative to this module). */
export async function runFolder(folder: string): Promise<void> {
  // mocha 12 is an ES module; `vscode` and `mocha` are left external by esbuild, so this
  // resolves to the extension's own node_modules/mocha.
  const mod = (await import('mocha')) as unknown as { default?: MochaCtor } & MochaCtor;
  const Mocha: MochaCtor = mod.default ?? mod;
  const mocha = new Mocha({
    ui: 'tdd',
    reporter: 'spec',
    color: !!process.env.MCP_TASKS_E2E_COLOR,
    timeout: Number(process.env.MCP_TASKS_E2E_TIMEOUT) || 20_000,
    // One retry per test (MCP_TASKS_E2E_RETRIES=0 for none). The tree races are fixed (two full runs in a
    // row passed without retries); one remains: a form opened by a command run from the palette sometimes
    // opens without the keyboard focus (it stays on the list focused before), seen once in five runs.
    retries: Number(process.env.MCP_TASKS_E2E_RETRIES ?? 1),
    grep: process.env.MCP_TASKS_E2E_GREP ? new RegExp(process.env.MCP_TASKS_E2E_GREP) : undefined,
  });
  const files = testFiles(path.join(__dirname, folder));
  if (files.length === 0) throw new Error(`no *.test.js files under ${path.join(__dirname, folder)}`);
  for (const f of files) mocha.addFile(f);
  await mocha.loadFilesAsync();

  const failures = await new Promise<number>((resolve, reject) => {
    try {
      const runner = mocha.run((n) => resolve(n));
      // A retried test passed only on its second try: say so in the log, with what failed the first time.
      runner.on('retry', (test: { fullTitle(): string }, err: unknown) => {
        console.log(`[e2e] RETRIED: ${test.fullTitle()}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      });
    } catch (err) {
      reject(err);
    }
  });
  if (failures > 0) throw new Error(`${failures} extension-host test(s) failed`);
}

/** The main suite (`suite/`). */
export function run(): Promise<void> {
  return runFolder('suite');
}
