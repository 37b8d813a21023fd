/**
 * `npm run hostile`: runs every attack of the hostile-server fixture once per transport against
 * the extension's core (see test/helpers/hostileAttacks.ts) and prints a markdown table (attack,
 * transport, outcome, time to recover, pass/fail), also written to bench-results/hostile.md.
 * Env: HOSTILE_ONLY (a regex on attack names), HOSTILE_VERBOSE=1 (print failed checks' details),
 * HOSTILE_TRACE=0 (hosts log at info level, as the extension does by default; trace is the worst case).
 * Exit code 1 if a check failed that no branch named in its spec's `fixedOn` is expected to fix.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ATTACK_SPECS, reportTable, runAttack, type AttackReport } from '../test/helpers/hostileAttacks.js';
import { ROOT } from '../test/helpers/host.js';

async function main(): Promise<void> {
  const only = process.env.HOSTILE_ONLY ? new RegExp(process.env.HOSTILE_ONLY) : undefined;
  const reports: AttackReport[] = [];
  for (const spec of ATTACK_SPECS) {
    if (only && !only.test(spec.name)) continue;
    for (const transport of spec.transports) {
      process.stderr.write(`${spec.name} over ${transport}… `);
      const r = await runAttack(spec, transport);
      reports.push(r);
      const failed = r.checks.filter((c) => !c.ok);
      process.stderr.write(failed.length ? `${failed.length} check(s) failed\n` : 'pass\n');
      if (process.env.HOSTILE_VERBOSE) for (const c of failed) process.stderr.write(`   ✗ ${c.name}: ${c.detail ?? ''}\n`);
    }
  }
  const table = reportTable(reports);
  const header = `# Hostile-server attacks\n\n${new Date().toISOString()} · node ${process.version} · ${reports.length} runs. Time to recover: from the end of the attack to the good server answering a ping.\n\n`;
  console.log(table);
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hostile.md'), `${header}${table}\n`);
  process.stderr.write(`written to ${join(dir, 'hostile.md')}\n`);
  const unexpected = reports.filter((r) => !r.fixedOn && r.checks.some((c) => !c.ok));
  process.exit(unexpected.length ? 1 : 0);
}

void main();
