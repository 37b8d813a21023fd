// Entry point of the extension-host test suite, loaded by VS Code as `extensionTestsPath`
// (both by `scripts/vscode-offline.mjs` in code-server and by `test/vscode/runElectron.mjs`).
// Runs mocha (TDD interface: `suite`/`test`/`setup`/`teardown`/`suiteSetup`/`suiteTeardown`)
// over every compiled `*.test.js` under this folder and rejects when any test fails.
//
// Environment (inherited by the extension host from the runner):
//   MCP_TASKS_E2E_GREP     only run tests whose full title matches this regular expression
//   MCP_TASKS_E2E_TIMEOUT  per-test timeout in ms (default 20000)
//   MCP_TASKS_E2E_RETRIES  retries per failed test (default 0; each retry is logged)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { recordActivation } from './activationRecord';

type MochaCtor = typeof import('mocha');

/** Compiled test files (`*.test.js`) below `dir`, sorted for a stable order. */
function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .sort();
}

/**
 * The main session's last files, in this order: what the window reload needs left behind (the
 * after-reload session checks it). Each leaves servers and tasks as the next one expects.
 */
const BEFORE_RELOAD = ['tasks.test.js', 'rev2026.test.js', 'stdioQuestion.test.js', 'signIn.test.js'];

/** Runs every test file under `folder` (relative to this module), sorted. */
export function runFolder(folder: string): Promise<void> {
  const files = testFiles(path.join(__dirname, folder));
  if (files.length === 0) throw new Error(`no *.test.js files under ${path.join(__dirname, folder)}`);
  return runFiles(files, folder);
}

/** Runs `files` in this order; `session` names this extension host's run in the activation record. */
async function runFiles(files: readonly string[], session: string): Promise<void> {
  await recordActivation(session);
  // mocha 12 is an ES module; `vscode` and `mocha` are left external by esbuild, so this
  // resolves to the extension's own node_modules/mocha.
  const mod = (await import('mocha')) as unknown as { default?: MochaCtor } & MochaCtor;
  const Mocha: MochaCtor = mod.default ?? mod;
  const mocha = new Mocha({
    ui: 'tdd',
    reporter: 'spec',
    color: !!process.env.MCP_TASKS_E2E_COLOR,
    timeout: Number(process.env.MCP_TASKS_E2E_TIMEOUT) || 20_000,
    // No retries: a test that passes only on its second try is a defect to fix, not to hide.
    // (MCP_TASKS_E2E_RETRIES=N to look for one: each retry is logged with what failed first.)
    retries: Number(process.env.MCP_TASKS_E2E_RETRIES ?? 0),
    grep: process.env.MCP_TASKS_E2E_GREP ? new RegExp(process.env.MCP_TASKS_E2E_GREP) : undefined,
  });
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

/** The main session: every suite under `suite/`, then `beforeReload/` in its order. */
export function run(): Promise<void> {
  const beforeReload = path.join(__dirname, 'beforeReload');
  const unlisted = testFiles(beforeReload).filter((f) => !BEFORE_RELOAD.includes(path.basename(f)));
  if (unlisted.length) throw new Error(`not in BEFORE_RELOAD (test/vscode/index.ts), so its place is unknown: ${unlisted.join(', ')}`);
  return runFiles([...testFiles(path.join(__dirname, 'suite')), ...BEFORE_RELOAD.map((f) => path.join(beforeReload, f))], 'main');
}
