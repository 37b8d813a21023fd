#!/usr/bin/env node
// Runs every check and test the project has, in order, streaming their output, then prints one
// summary table and a closing line "tests: N passed, M failed". Exits non-zero if any stage failed.
//
//   node scripts/test-all.mjs                 all stages
//   node scripts/test-all.mjs unit integration only these stages
import { spawn } from 'node:child_process';
import { failureNames } from './lib/failureNames.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Each stage: a command and how to read its test counts from its output. */
const STAGES = [
  { name: 'lint', cmd: [npm, 'run', '--silent', 'lint'] },
  { name: 'typecheck', cmd: [npm, 'run', '--silent', 'typecheck'] },
  { name: 'build', cmd: [npm, 'run', '--silent', 'build'] },
  { name: 'unit', cmd: [npm, 'run', '--silent', 'test:unit'], counts: nodeTestCounts },
  { name: 'integration', cmd: [npm, 'run', '--silent', 'test:integration'], counts: nodeTestCounts },
  // Two minutes of faults against real servers (bench/soak.ts), about 2.5 min with its build and settling.
  { name: 'soak', cmd: [npm, 'run', '--silent', 'soak', '--', '2'], counts: soakCounts },
  // Node 24, code-server and Chromium from the npm registry, cached in ~/.cache/mcp-tasks-e2e
  // (minutes on a cold machine, well under a second when cached): its own row in the summary.
  { name: 'toolchain', cmd: [process.execPath, 'scripts/lib/toolchain.mjs'] },
  { name: 'vscode', cmd: [npm, 'run', '--silent', 'test:vscode'], counts: mochaCounts },
  { name: 'conformance', cmd: [npm, 'run', '--silent', 'conformance'], counts: conformanceCounts },
  { name: 'package', cmd: [npm, 'run', '--silent', 'package'] },
];

function nodeTestCounts(out) {
  const pass = [...out.matchAll(/^# pass (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  const fail = [...out.matchAll(/^# fail (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  return { pass, fail };
}

function mochaCounts(out) {
  const pass = [...out.matchAll(/(\d+) passing/g)].reduce((n, m) => n + Number(m[1]), 0);
  const fail = [...out.matchAll(/(\d+) failing/g)].reduce((n, m) => n + Number(m[1]), 0);
  return { pass, fail };
}

/** The soak is one test: passed or failed as its last line says. */
function soakCounts(out) {
  const m = /^soak: (pass|FAIL)$/m.exec(out);
  return m ? { pass: m[1] === 'pass' ? 1 : 0, fail: m[1] === 'pass' ? 0 : 1 } : { pass: 0, fail: 0 };
}

function conformanceCounts(out) {
  const m = /conformance: (\d+) passed, (\d+) failed/.exec(out);
  return m ? { pass: Number(m[1]), fail: Number(m[2]) } : { pass: 0, fail: 0 };
}

function run(stage) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(stage.cmd[0], stage.cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), out, seconds: (Date.now() - started) / 1000 }));
    child.on('error', (e) => resolve({ code: 1, out: String(e), seconds: (Date.now() - started) / 1000 }));
  });
}

/** Runs the stages asked for (all by default), then prints the summary; resolves the exit code. */
async function main() {
  const only = process.argv.slice(2);
  const stages = only.length ? STAGES.filter((s) => only.includes(s.name)) : STAGES;
  const unknown = only.filter((n) => !STAGES.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`unknown stage(s): ${unknown.join(', ')}; known: ${STAGES.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }

  const rows = [];
  let passed = 0;
  let failed = 0;
  for (const stage of stages) {
    console.log(`\n━━━ ${stage.name}: ${stage.cmd.slice(1).join(' ')} ━━━`);
    const r = await run(stage);
    const counts = stage.counts?.(r.out);
    if (counts) {
      passed += counts.pass;
      failed += counts.fail;
    }
    // A stage that exits non-zero fails even if it counted no failing test.
    if (r.code !== 0 && (!counts || counts.fail === 0)) failed += 1;
    rows.push({ stage: stage.name, ok: r.code === 0, counts, seconds: r.seconds, failures: r.code === 0 ? [] : failureNames(r.out) });
  }

  console.log('\n━━━ summary ━━━');
  for (const row of rows) {
    const counts = row.counts ? `${row.counts.pass} passed, ${row.counts.fail} failed` : '';
    console.log(`${row.ok ? 'ok  ' : 'FAIL'}  ${row.stage.padEnd(12)} ${row.seconds.toFixed(1).padStart(6)} s  ${counts}`);
    for (const name of row.failures) console.log(`        ✗ ${name}`);
  }
  const allOk = rows.every((r) => r.ok);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  return allOk ? 0 : 1;
}

process.exit(await main());
