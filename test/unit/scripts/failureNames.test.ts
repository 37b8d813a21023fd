/**
 * The failed tests test-all.mjs names under a failed stage in its summary (scripts/lib/failureNames.mjs),
 * read from what each stage really prints: node:test's TAP (unit, integration), mocha's spec
 * reporter (the real-VS-Code suite), conformance's FAIL lines, and tsc's and eslint's errors.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failureNames } from '../../../scripts/lib/failureNames.mjs';

/** `node --test` on two files (TAP: its reporter when piped): a failing test in a suite, a failing top-level test, a file that does not load. */
const TAP = `TAP version 13
# Subtest: the ledger
    # Subtest: keeps a task
    ok 1 - keeps a task
      ---
      duration_ms: 1.499142
      ...
    # Subtest: drops an expired task
    not ok 2 - drops an expired task
      ---
      duration_ms: 1.274087
      location: '/work/test/unit/receiver/ledger.test.ts:5:3'
      failureType: 'testCodeFailure'
      error: |-
        Expected values to be strictly equal:

        1 !== 2

      code: 'ERR_ASSERTION'
      ...
    1..2
not ok 1 - the ledger
  ---
  duration_ms: 3.919688
  type: 'suite'
  location: '/work/test/unit/receiver/ledger.test.ts:3:1'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  code: 'ERR_TEST_FAILURE'
  ...
# Subtest: top level fails
not ok 2 - top level fails
  ---
  duration_ms: 0.130975
  failureType: 'testCodeFailure'
  error: 'boom'
  ...
# Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/work/src/nope.js' imported from /work/test/unit/ui/taskRows.test.ts
# Subtest: test/unit/ui/taskRows.test.ts
not ok 3 - test/unit/ui/taskRows.test.ts
  ---
  duration_ms: 330.1
  failureType: 'testCodeFailure'
  ...
# Subtest: /work/test/integration/headless/headless.test.ts
not ok 4 - /work/test/integration/headless/headless.test.ts
  ---
  ...
1..4
# tests 5
# suites 1
# pass 1
# fail 4
# cancelled 0
# skipped 0
# todo 0
`;

/** mocha's spec reporter in the extension host (test/vscode/index.ts), as the runner prints it. */
const MOCHA = `[vscode-e2e] running the extension-host suite…

  Extension API
    1) API consumer: priorities queue behind the per-server limit
    ✔ the API's version (12ms)

  activation
    2) registers the Tasks view


  1 passing (1m)
  2 failing

  1) Extension API
       API consumer: priorities queue behind the per-server limit:

      AssertionError [ERR_ASSERTION]: 1 == 2
      + expected - actual

      -1
      +2

      at Context.<anonymous> (dist/test/vscode/suite/api-consumer.test.js:3:89)

  2) activation
       registers the Tasks view:
     Error: tree frozen
      at Context.<anonymous> (dist/test/vscode/suite/activation.test.js:6:89)


[vscode-e2e] the extension-host suite failed in 95.2 s
`;

describe('failureNames: what failed, named in the summary', () => {
  test("node:test's TAP: each failed test and suite, not the files (a file's own failure is its tests')", () => {
    assert.deepEqual(failureNames(TAP), ['drops an expired task', 'the ledger', 'top level fails']);
  });

  test("mocha's spec reporter: suite › test from the numbered headings after the summary, not the run's list", () => {
    assert.deepEqual(failureNames(MOCHA), [
      'Extension API › API consumer: priorities queue behind the per-server limit',
      'activation › registers the Tasks view',
    ]);
  });

  test("conformance's FAIL lines and a summary's ✗ rows", () => {
    const out = [
      'timing: build 3 s, node 24 0 s, scenarios 41 s, total 45 s',
      'FAIL: scenario "tasks-cancel-race" (2025-11-25) is not described in src/headless/conformanceScenarios.json',
      '        ✗ the ledger',
      'conformance: 60 passed, 1 failed (2 expected failure(s), 3 not applicable)',
    ].join('\n');
    assert.deepEqual(failureNames(out), ['scenario "tasks-cancel-race" (2025-11-25) is not described in src/headless/conformanceScenarios.json', 'the ledger']);
  });

  test("tsc's errors: file, line and message", () => {
    const out = [
      "src/ui/tasksTree.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "test/unit/ui/taskRows.test.ts(9,10): error TS2305: Module '\"../../../src/ui/tasksTree.js\"' has no exported member 'Nope'.",
      '',
      'Found 2 errors in 2 files.',
    ].join('\n');
    assert.deepEqual(failureNames(out), [
      "src/ui/tasksTree.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "test/unit/ui/taskRows.test.ts(9,10): error TS2305: Module '\"../../../src/ui/tasksTree.js\"' has no exported member 'Nope'.",
    ]);
  });

  test("eslint's errors: file (relative to the root), line, message and rule; warnings are not failures", () => {
    const out = [
      '',
      '/ci/repo/src/core/requestor/tracker.ts',
      "  13:10  error    'Emitter' is defined but never used. Allowed unused vars must match /^_/u  @typescript-eslint/no-unused-vars",
      '  20:1   warning  Unexpected console statement  no-console',
      '',
      '/ci/repo/test/unit/ui/taskRows.test.ts',
      "  4:1  error  Import of 'vscode' is not allowed here  no-restricted-imports",
      '',
      '✖ 3 problems (2 errors, 1 warning)',
      '',
    ].join('\n');
    assert.deepEqual(failureNames(out, '/ci/repo'), [
      "src/core/requestor/tracker.ts:13:10 'Emitter' is defined but never used. Allowed unused vars must match /^_/u (@typescript-eslint/no-unused-vars)",
      "test/unit/ui/taskRows.test.ts:4:1 Import of 'vscode' is not allowed here (no-restricted-imports)",
    ]);
  });

  test('each name once, at most 20; nothing named in a passing output', () => {
    const many = Array.from({ length: 25 }, (_, i) => `not ok ${i + 1} - test ${i % 22}`).join('\n');
    const names = failureNames(many);
    assert.equal(names.length, 20);
    assert.equal(new Set(names).size, 20);
    assert.equal(names[0], 'test 0');
    assert.deepEqual(failureNames('TAP version 13\nok 1 - keeps a task\n1..1\n# pass 1\n# fail 0\n'), []);
    assert.deepEqual(failureNames('\n  activation\n    ✔ registers the Tasks view\n\n  1 passing (2s)\n'), []);
  });
});
