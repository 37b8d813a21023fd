/**
 * A hostile server (test/fixtures/hostileServer.ts) tries each attack against the
 * extension's core while a well-behaved server has a task in flight on each side. Per attack and
 * transport: the host stays responsive (the good server answers pings during and after), the good
 * server's tasks complete, the hostile server ends in a clear state or gets precise JSON-RPC errors,
 * nothing throws uncaught, and memory and log lines stay bounded. The checks live in
 * test/helpers/hostileAttacks.ts (shared with `npm run hostile`, which prints them as a table).
 *
 * Tests named "[fixed on sec-…]" show a defect another branch fixes; they are `todo`
 * here and become plain tests once that branch is merged (remove `fixedOn` from the spec).
 *
 * Needs `node esbuild.mjs` first (the fixtures are started from dist/fixtures).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTACK_SPECS, runAttack } from '../helpers/hostileAttacks.js';
import { checkLeaks } from '../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

for (const spec of ATTACK_SPECS) {
  describe(`hostile server: ${spec.name}`, () => {
    for (const transport of spec.transports) {
      const title = `${spec.fixedOn ? `[fixed on ${spec.fixedOn}] ` : ''}${spec.name} over ${transport}: ${spec.what}`;
      test(title, { timeout: 120_000, ...(spec.fixedOn ? { todo: `fixed on branch ${spec.fixedOn}` } : {}) }, async () => {
        const report = await runAttack(spec, transport);
        const failed = report.checks.filter((c) => !c.ok);
        assert.deepEqual(
          failed.map((c) => `${c.name}${c.detail ? ` — ${c.detail.slice(0, 600)}` : ''}`),
          [],
          `outcome: ${report.outcome}`,
        );
      });
    }
  });
}
