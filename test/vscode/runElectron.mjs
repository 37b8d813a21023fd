#!/usr/bin/env node
// The standard @vscode/test-electron runner, for machines that can download VS Code (it
// fetches a VS Code build into .vscode-test/ on first use). On the offline machines use
// `npm run test:vscode` (scripts/vscode-offline.mjs) instead. On Linux without a display,
// run it under `xvfb-run -a`.
//
//   node esbuild.mjs && node test/vscode/runElectron.mjs
//
// VSCODE_VERSION picks the build (default: the lowest version engines.vscode allows, so the
// tests run against the oldest API we claim to support; 'stable' or 'insiders' work too).
import { runTests } from '@vscode/test-electron';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const minVersion = /(\d+\.\d+\.\d+)/.exec(manifest.engines?.vscode ?? '')?.[1];
const version = process.env.VSCODE_VERSION || minVersion || 'stable';

// A fresh user-data dir whose user settings let the demo workspace's own servers start without the
// first-start question (a user-only setting; the question is a modal dialog no test can answer).
const userData = mkdtempSync(join(tmpdir(), 'mcp-tasks-electron-'));
mkdirSync(join(userData, 'User'), { recursive: true });
writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ 'mcpTasks.workspaceServers.firstStart': 'allow' }));
process.on('exit', () => rmSync(userData, { recursive: true, force: true }));

try {
  await runTests({
    version,
    extensionDevelopmentPath: root,
    extensionTestsPath: join(root, 'dist', 'test', 'vscode', 'index.js'),
    launchArgs: [join(root, 'examples', 'demo'), '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${userData}`, '--skip-welcome', '--skip-release-notes'],
  });
} catch (err) {
  console.error(`[test-electron] failed: ${err?.message ?? err}`);
  process.exit(1);
}
