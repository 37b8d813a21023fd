// What failed in a stage's output, for the summary of scripts/test-all.mjs (its own module so a
// unit test can import it without running every stage).

/**
 * The names of what failed in a stage's output, for the summary (a CI log is often read from its
 * tail): node's TAP `not ok` lines, mocha's numbered failure headings, conformance FAILURE rows,
 * tsc's and eslint's errors (`root`: eslint's absolute paths are named relative to it).
 */
export function failureNames(out, root = process.cwd()) {
  const names = [];
  for (const m of out.matchAll(/^\s*not ok \d+ - (.+)$/gm)) if (!/^\/|\.test\.ts$/.test(m[1])) names.push(m[1]);
  const mochaFailing = out.lastIndexOf(' failing');
  if (mochaFailing >= 0) {
    // "  1) suite\n       test:" — the heading and its next line name the test.
    for (const m of out.slice(mochaFailing).matchAll(/^ {2}\d+\) (.+)\n\s+(.+?):?$/gm)) names.push(`${m[1].trim()} › ${m[2].trim()}`);
  }
  for (const m of out.matchAll(/^\s*(?:✗|FAIL:?)\s+(\S.*)$/gm)) names.push(m[1]);
  // tsc: the file and line of each error.
  for (const m of out.matchAll(/^(\S+\(\d+,\d+\): error TS\d+: .+)$/gm)) names.push(m[1]);
  // eslint's stylish output: a file's path on a line of its own, then its problems indented; errors only.
  let file;
  for (const line of out.split('\n')) {
    if (/^\/\S/.test(line)) file = line.trim().startsWith(`${root}/`) ? line.trim().slice(root.length + 1) : line.trim();
    const m = file && /^\s+(\d+):(\d+)\s+error\s+(.+?)\s{2,}(\S+)$/.exec(line);
    if (m) names.push(`${file}:${m[1]}:${m[2]} ${m[3]} (${m[4]})`);
  }
  return [...new Set(names)].slice(0, 20);
}
