// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, client mode) against
// the headless client (dist/headless-client.js): the suite's frozen requirement set of each
// revision, at that revision's wire — the scored scenarios and every not-scored one (extensions,
// added after the release), each its own row — plus the few scenarios outside both sets that
// src/headless/conformanceScenarios.json names. One scenario at a time.
//
//   npm run conformance [-- --revision 2026-07-28] [-- --scenario <name>] [-- --verbose]
//
// `--requirements <revision>` in the suite runs a set's scenarios all at once; on a 2-core machine
// that starves the timing checks (sse-retry measures the reconnect delay), so each scenario is run
// by itself exactly as the set runs it: `--scenario <name> --spec-version <revision> --force`. The
// headless client is not told the revision: it negotiates it the way the extension does.
//
// A scenario passes as the requirement sets score it: by its checks (none failing; a warning is
// counted as a failure here too). The client's own exit code is not part of the score (a
// scenario's server may, say, list a tool and not answer tools/call); it is shown in the table.
//
// The suite needs Node >= 22: it runs on the Node 24 from scripts/lib/toolchain.mjs (installed
// from npm into ~/.cache/mcp-tasks-e2e on first use); the headless client runs on this Node.
// Each scenario starts its own test servers on free ports; nothing leaves the machine. Results
// (checks.json, the client's stdout/stderr) are kept under test-results/conformance/. Exit 1 on
// any failure: a scored scenario failing, a not-scored one failing that is not an expected
// failure (or passing while it is one), a scenario no row accounts for.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24 } from './lib/toolchain.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const CLIENT = join(ROOT, 'dist', 'headless-client.js');
const RESULTS = join(ROOT, 'test-results', 'conformance');
const CATALOG = JSON.parse(readFileSync(join(ROOT, 'src', 'headless', 'conformanceScenarios.json'), 'utf8'));
const REVISIONS = ['2025-11-25', '2026-07-28'];
const SCENARIO_TIMEOUT_MS = 30_000;

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const onlyScenario = option('--scenario');
const onlyRevision = option('--revision');
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
const suite = (argv, opts = {}) => spawnSync(node24, ['--no-deprecation', SUITE, ...argv], { encoding: 'utf8', ...opts });
const tNode = Date.now();

// 3. The rows: each revision's frozen set, then the scenarios outside every set.
const listed = suite(['list', '--client']);
if (listed.status !== 0) fail(`conformance list failed: ${listed.stderr || listed.stdout}`);
const allClient = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
if (allClient.length === 0) fail(`conformance list printed no client scenarios:\n${listed.stdout}`);

const rows = [];
for (const revision of REVISIONS) {
  const set = requirementSet(revision);
  for (const name of set.scored) rows.push({ revision, name, set: 'scored' });
  for (const { name, reason } of set.notScored) rows.push({ revision, name, set: 'not scored', reason });
}
const inSets = new Set(rows.map((r) => r.name));
const problems = [];
for (const name of allClient.filter((n) => !inSets.has(n))) {
  const outside = CATALOG.outsideRequirementSets[name];
  const na = CATALOG.notApplicable.find((n) => name.startsWith(n.prefix));
  if (outside) rows.push({ revision: outside.specVersion, name, set: 'outside the sets', reason: outside.why });
  else if (na) rows.push({ revision: '-', name, set: 'outside the sets', notApplicable: na.reason });
  else problems.push(`scenario "${name}" is in no requirement set and not classified: add it to outsideRequirementSets or notApplicable in src/headless/conformanceScenarios.json`);
}
// The catalog must describe every scenario that runs, and name nothing the suite does not have.
for (const r of rows) if (!r.notApplicable && !(r.name in CATALOG.scenarios) && !(r.name in CATALOG.outsideRequirementSets)) problems.push(`scenario "${r.name}" (${r.revision}) is not described in src/headless/conformanceScenarios.json`);
for (const name of [...Object.keys(CATALOG.scenarios), ...Object.keys(CATALOG.outsideRequirementSets)]) if (!allClient.includes(name)) problems.push(`scenario "${name}" (src/headless/conformanceScenarios.json) is not in the suite any more`);
for (const name of Object.keys(CATALOG.expectedFailures)) if (!rows.some((r) => r.name === name && r.set === 'not scored')) problems.push(`expectedFailures names "${name}", which no revision runs unscored: only not-scored scenarios may be expected to fail`);

const selected = (r) => !r.notApplicable && (!onlyScenario || r.name === onlyScenario) && (!onlyRevision || r.revision === onlyRevision);
if (onlyScenario && !rows.some((r) => r.name === onlyScenario)) fail(`unknown scenario "${onlyScenario}"; the suite has: ${allClient.join(', ')}`);

// 4. Run them, one at a time.
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });
const quote = (p) => (/[\s"'$`\\]/.test(p) ? `"${p.replace(/(["$`\\])/g, '\\$1')}"` : p);
// The runner splits --command on spaces and runs it through a shell, appending the server URL.
// The suite's Client ID Metadata Document URL (auth/basic-cimd), as its own example clients use it.
const command = `${quote(process.execPath)} ${quote(CLIENT)} --client-metadata-url https://conformance-test.local/client-metadata.json`;
const toRun = rows.filter(selected);
console.log(`\nconformance: ${toRun.length} scenario run(s) against \`${command} <url>\` (suite on ${node24})\n`);

for (const row of toRun) {
  const out = join(RESULTS, row.revision);
  const started = Date.now();
  const run = await runSuite(['client', '--command', command, '--scenario', row.name, '--spec-version', row.revision, '--force', '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', out]);
  row.ms = Date.now() - started;
  row.dir = /Results saved to (.+)$/m.exec(run.stdout + run.stderr)?.[1]?.trim();
  let checks = [];
  try {
    checks = JSON.parse(readFileSync(join(row.dir, 'checks.json'), 'utf8'));
  } catch {
    /* no checks: the runner failed before the client ran */
  }
  row.passedChecks = checks.filter((c) => c.status === 'SUCCESS').length;
  row.failedChecks = checks.filter((c) => c.status === 'FAILURE');
  row.warnings = checks.filter((c) => c.status === 'WARNING');
  row.passed = checks.length > 0 && row.failedChecks.length === 0 && row.warnings.length === 0;
  row.clientExit = /CLIENT EXITED WITH ERROR \(code (\d+)\)/.exec(run.stdout + run.stderr)?.[1];
  row.timedOut = /CLIENT TIMED OUT/.test(run.stdout + run.stderr);
  row.expectedFailure = row.set === 'not scored' ? CATALOG.expectedFailures[row.name] : undefined;
  row.ok = row.expectedFailure ? !row.passed : row.passed;
  const result = resultOf(row);
  console.log(`${result.padEnd(13)} ${row.revision} ${row.name} (${seconds(row.ms)})`);
  if (!row.passed && (!row.expectedFailure || verbose)) {
    for (const c of [...row.failedChecks, ...row.warnings]) console.log(`     ${c.status} ${c.id ?? c.name}: ${c.errorMessage ?? c.description}`);
    if (row.timedOut) console.log('     the client timed out');
    if (row.clientExit) console.log(`     the client exited with code ${row.clientExit}`);
    if (row.dir) console.log(`     details: ${row.dir}/ (checks.json, stderr.txt)`);
    if (verbose || !row.dir) console.log(indent(run.stdout + run.stderr));
  }
  if (row.expectedFailure && row.passed) console.log('     it passes now: take it out of expectedFailures in src/headless/conformanceScenarios.json');
}

// 5. The table, per revision.
const W = Math.max(...rows.map((r) => r.name.length), 'scenario'.length);
const S = Math.max(...rows.map((r) => setLabel(r).length), 'set'.length);
const line = (...cols) => console.log(cols.join('  '));
for (const revision of [...new Set(rows.map((r) => r.revision))]) {
  console.log(`\n${revision === '-' ? 'not applicable to this host' : `revision ${revision}`}`);
  line('scenario'.padEnd(W), 'set'.padEnd(S), 'result'.padEnd(13), 'checks'.padEnd(7), 'time'.padStart(6), 'note');
  line('-'.repeat(W), '-'.repeat(S), '-'.repeat(13), '-------', '------', '----');
  for (const r of rows.filter((x) => x.revision === revision)) {
    const checks = r.ms !== undefined ? `${r.passedChecks}/${r.passedChecks + r.failedChecks.length}${r.warnings.length ? ` ${r.warnings.length}w` : ''}` : '';
    const note = r.notApplicable ?? r.expectedFailure ?? (r.ms === undefined ? 'not selected' : r.timedOut ? 'the client timed out' : r.clientExit ? `the client exited with ${r.clientExit} (its log: ${relative(ROOT, r.dir)}/stderr.txt)` : '');
    line(r.name.padEnd(W), setLabel(r).padEnd(S), resultOf(r).padEnd(13), checks.padEnd(7), (r.ms !== undefined ? seconds(r.ms) : '').padStart(6), note);
  }
}

// 6. The counts.
const ran = rows.filter((r) => r.ms !== undefined);
console.log('');
for (const revision of REVISIONS) {
  const scored = ran.filter((r) => r.revision === revision && r.set === 'scored');
  const unscored = ran.filter((r) => r.revision === revision && r.set === 'not scored');
  if (scored.length + unscored.length === 0) continue;
  console.log(
    `${revision}: scored ${scored.filter((r) => r.passed).length}/${scored.length} passed; not scored ${unscored.filter((r) => r.passed).length}/${unscored.length} passed` +
      `${unscored.some((r) => r.expectedFailure && !r.passed) ? ` (${unscored.filter((r) => r.expectedFailure && !r.passed).map((r) => r.name).join(', ')} failing as expected)` : ''}`,
  );
}
for (const p of problems) console.log(`FAIL: ${p}`);
const passed = ran.filter((r) => r.passed).length;
const failed = ran.filter((r) => !r.ok).length + problems.length;
const expected = ran.filter((r) => r.expectedFailure && !r.passed).length;
console.log(`timing: build ${seconds(tBuilt - t0)}, node 24 ${seconds(tNode - tBuilt)}, scenarios ${seconds(ran.reduce((s, r) => s + r.ms, 0))}, total ${seconds(Date.now() - t0)}`);
console.log(`conformance: ${passed} passed, ${failed} failed (${expected} expected failure(s), ${rows.filter((r) => r.notApplicable).length} not applicable)`);
process.exit(failed > 0 ? 1 : 0);

// ---------------------------------------------------------------------------------------------

/** A revision's frozen client scenarios: `list --requirements`, scored and not scored (with the reason). */
function requirementSet(revision) {
  const r = suite(['list', '--requirements', revision]);
  if (r.status !== 0) fail(`conformance list --requirements ${revision} failed: ${r.stderr || r.stdout}`);
  const text = r.stdout;
  const clientPart = /Client scenarios[^\n]*:\n((?:\s+- \S+\n)+)/.exec(text)?.[1] ?? '';
  const scored = [...clientPart.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]);
  const notScored = [];
  let reason;
  for (const l of (text.split('Run and reported, but never scored:')[1] ?? '').split('\n')) {
    const header = /^ {2}(\S[^(]*?) \(\d+\):$/.exec(l);
    if (header) reason = header[1];
    const entry = /^\s+- (\S+) \[client\]$/.exec(l);
    if (entry) notScored.push({ name: entry[1], reason });
  }
  if (scored.length === 0) fail(`conformance list --requirements ${revision} named no client scenario:\n${text}`);
  return { scored, notScored };
}

function setLabel(r) {
  return r.set === 'not scored' ? `not scored: ${r.reason}` : r.set;
}

function resultOf(r) {
  if (r.notApplicable) return 'n/a';
  if (r.ms === undefined) return 'skip';
  if (r.expectedFailure) return r.passed ? 'PASS (update)' : 'FAIL expected';
  return r.passed ? 'PASS' : 'FAIL';
}

function runSuite(argv) {
  return new Promise((resolvePromise) => {
    const child = spawn(node24, ['--no-deprecation', SUITE, ...argv], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
