// What failed in a stage's output, for the summary of scripts/test-all.mjs (its own module so a
// unit test can import it without running every stage).

/**
 * The names of what failed in a stage's output, for the summary (a CI log is often read from its
 * tail): node's TAP `not ok` lines, mocha's numbered failure headings, conformance FAILURE rows.
 */
export function failureNames(out) {
  const names = [];
  for (const m of out.matchAll(/^\s*not ok \d+ - (.+)$/gm)) if (!/^\/|\.test\.ts$/.test(m[1])) names.push(m[1]);
  const mochaFailing = out.lastIndexOf(' failing');
  if (mochaFailing >= 0) {
    // "  1) suite\n       test:" — the heading and its next line name the test.
    for (const m of out.slice(mochaFailing).matchAll(/^ {2}\d+\) (.+)\n\s+(.+?):?$/gm)) names.push(`${m[1].trim()} › ${m[2].trim()}`);
  }
  for (const m of out.matchAll(/^\s*(?:✗|FAIL:?)\s+(\S.*)$/gm)) names.push(m[1]);
  // tsc and eslint: the file and line of each error.
  for (const m of out.matchAll(/^(\S+\(\d+,\d+\): error TS\d+: .+)$/gm)) names.push(m[1]);
  return [...new Set(names)].slice(0, 20);
}
