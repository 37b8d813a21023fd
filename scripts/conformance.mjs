// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, client mode)
// against the headless client (dist/headless-client.js), one applicable scenario at a time.
//
//   npm run conformance [-- --scenario <name>] [-- --verbose]
//
// The suite needs Node >= 22: it runs on the Node 24 from scripts/lib/toolchain.mjs (installed
// from npm into ~/.cache/mcp-tasks-e2e on first use); the headless client runs on this Node.
// Each scenario starts its own test server on a free port and hands the client a
// http://localhost:<port> URL; nothing leaves the machine. Results (checks.json, the client's
// stdout/stderr) are kept under test-results/conformance/. Exit 1 on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24 } from './lib/toolchain.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const CLIENT = join(ROOT, 'dist', 'headless-client.js');
const RESULTS = join(ROOT, 'test-results', 'conformance');
const SCENARIOS = JSON.parse(readFileSync(join(ROOT, 'src', 'headless', 'conformanceScenarios.json'), 'utf8'));
const SCENARIO_TIMEOUT_MS = 30_000;

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.includes('--scenario') ? args[args.indexOf('--scenario') + 1] : undefined;
const t0 = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// 1. Build the headless client.
{
  const r = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) fail(`build failed (exit ${r.status ?? r.signal})`);
  if (!existsSync(CLIENT)) fail(`the build did not produce ${CLIENT}`);
}
const tBuilt = Date.now();

// 2. A Node >= 22 for the suite.
const node24 = await ensureNode24();
if (!node24 || !existsSync(node24)) fail('no Node 24 binary (scripts/lib/toolchain.mjs ensureNode24)');
const suiteNode = [node24, '--no-deprecation', SUITE];
const tNode = Date.now();

// 3. The suite's client scenarios, classified.
const listed = spawnSync(suiteNode[0], [...suiteNode.slice(1), 'list', '--client'], { encoding: 'utf8' });
if (listed.status !== 0) fail(`conformance list failed: ${listed.stderr || listed.stdout}`);
const all = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
if (all.length === 0) fail(`conformance list printed no client scenarios:\n${listed.stdout}`);
const rows = all.map((name) => {
  if (name in SCENARIOS.applicable) return { name, applicable: true };
  const na = SCENARIOS.notApplicable.find((n) => name.startsWith(n.prefix));
  return na ? { name, applicable: false, reason: na.reason } : { name, applicable: undefined };
});
for (const name of Object.keys(SCENARIOS.applicable)) {
  if (!all.includes(name)) fail(`scenario "${name}" (src/headless/conformanceScenarios.json) is not in the suite any more`);
}
const unclassified = rows.filter((r) => r.applicable === undefined);
if (only && !all.includes(only)) fail(`unknown scenario "${only}"; the suite has: ${all.join(', ')}`);
const toRun = rows.filter((r) => r.applicable && (!only || r.name === only));

// 4. Run them, one at a time (sse-retry measures reconnection timing: keep the machine quiet).
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });
const quote = (p) => (/[\s"'$`\\]/.test(p) ? `"${p.replace(/(["$`\\])/g, '\\$1')}"` : p);
// The runner splits --command on spaces and runs it through a shell, appending the server URL.
// The suite's Client ID Metadata Document URL (auth/basic-cimd), as its own example clients use it.
const command = `${quote(process.execPath)} ${quote(CLIENT)} --client-metadata-url https://conformance-test.local/client-metadata.json`;
console.log(`\nconformance: ${toRun.length} scenario(s) against \`${command} <url>\` (suite on ${node24})\n`);

for (const row of toRun) {
  const started = Date.now();
  const out = await run(suiteNode[0], [...suiteNode.slice(1), 'client', '--command', command, '--scenario', row.name, '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', RESULTS]);
  row.ms = Date.now() - started;
  row.exitCode = out.code;
  const dir = /Results saved to (.+)$/m.exec(out.stderr)?.[1]?.trim();
  row.dir = dir;
  let checks = [];
  try {
    checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8'));
  } catch {
    /* no checks: the runner failed before the client ran */
  }
  row.passedChecks = checks.filter((c) => c.status === 'SUCCESS').length;
  row.failedChecks = checks.filter((c) => c.status === 'FAILURE');
  row.warnings = checks.filter((c) => c.status === 'WARNING');
  row.ok = out.code === 0 && row.failedChecks.length === 0 && row.warnings.length === 0;
  row.timedOut = /CLIENT TIMED OUT/.test(out.stderr);
  row.clientExit = /CLIENT EXITED WITH ERROR \(code (\d+)\)/.exec(out.stderr)?.[1];
  console.log(`${row.ok ? 'PASS' : 'FAIL'} ${row.name} (${seconds(row.ms)})`);
  if (!row.ok || verbose) {
    for (const c of [...row.failedChecks, ...row.warnings]) console.log(`     ${c.status} ${c.name}: ${c.errorMessage ?? c.description}`);
    if (row.timedOut) console.log('     the client timed out');
    if (row.clientExit) console.log(`     the client exited with code ${row.clientExit}`);
    if (dir) console.log(`     details: ${dir}/ (checks.json, stderr.txt)`);
    if (verbose || !dir) console.log(indent(out.stdout + out.stderr));
  }
}

// 5. The table.
const W = Math.max(...rows.map((r) => r.name.length), 'scenario'.length);
const line = (...cols) => console.log(cols.join('  '));
console.log('');
line('scenario'.padEnd(W), 'result'.padEnd(6), 'checks'.padEnd(7), 'time'.padStart(6), 'note');
line('-'.repeat(W), '------', '-------', '------', '----');
for (const r of rows) {
  if (r.applicable && r.ms !== undefined) {
    const checks = `${r.passedChecks}/${r.passedChecks + r.failedChecks.length}${r.warnings.length ? ` ${r.warnings.length}w` : ''}`;
    line(r.name.padEnd(W), (r.ok ? 'PASS' : 'FAIL').padEnd(6), checks.padEnd(7), seconds(r.ms).padStart(6), '');
  } else if (r.applicable) {
    line(r.name.padEnd(W), 'skip'.padEnd(6), ''.padEnd(7), ''.padStart(6), `not selected (--scenario ${only})`);
  } else if (r.applicable === false) {
    line(r.name.padEnd(W), 'n/a'.padEnd(6), ''.padEnd(7), ''.padStart(6), shortReason(r.reason));
  } else {
    line(r.name.padEnd(W), 'FAIL'.padEnd(6), ''.padEnd(7), ''.padStart(6), 'not classified: add it to src/headless/conformanceScenarios.json');
  }
}
const ran = rows.filter((r) => r.ms !== undefined);
const passed = ran.filter((r) => r.ok).length;
const failed = ran.length - passed + unclassified.length;
const notApplicable = rows.filter((r) => r.applicable === false).length;
console.log('');
for (const reason of new Set(rows.filter((r) => r.applicable === false).map((r) => r.reason))) console.log(`n/a: ${reason}`);
console.log(
  `timing: build ${seconds(tBuilt - t0)}, node 24 ${seconds(tNode - tBuilt)}, scenarios ${seconds(ran.reduce((s, r) => s + r.ms, 0))}, total ${seconds(Date.now() - t0)}`,
);
console.log(`conformance: ${passed} passed, ${failed} failed (${notApplicable} not applicable)`);
process.exit(failed > 0 ? 1 : 0);

// ---------------------------------------------------------------------------------------------

function run(cmd, argv) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // The runner has its own per-scenario timeout; this one only guards against a hung runner.
    const guard = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS + 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.on('error', (e) => {
      clearTimeout(guard);
      resolvePromise({ code: 1, stdout, stderr: `${stderr}\n${e.message}` });
    });
  });
}

function shortReason(reason) {
  return reason.split(':')[0];
}

function indent(s) {
  return s
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trimEnd()
    .split('\n')
    .map((l) => `       | ${l}`)
    .join('\n');
}

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(1);
}
