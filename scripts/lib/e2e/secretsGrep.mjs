// After the suites: no token or code of the run's sign-ins may be in any file of the run.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Every file below `dir` (the run's user data, logs and extensions; test-results). */
function filesBelow(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/**
 * Greps every file of the run (code-server's user data with the extension host's logs and output
 * channels, the workbench logs the page handed over, the runner's logs) for every token, refresh
 * token and code the OAuth fixtures issued (the runner's fixture process at `oauthUrl`, and what the
 * tests' own fixtures reported in `secretsFile`). Only names files, never the values.
 */
export async function grepRunForSecrets({ secretsFile, oauthUrl, runDir, resultsDir }) {
  const values = new Set(readFileSync(secretsFile, 'utf8').split('\n').filter((v) => v.length >= 8));
  try {
    const res = await fetch(new URL('/control/secrets', oauthUrl), { method: 'POST' });
    for (const v of (await res.json()).secrets) if (v.length >= 8) values.add(v);
  } catch (err) {
    return { status: 'BROKEN', detail: `could not read the OAuth fixture's secrets: ${err?.message ?? err}` };
  }
  if (values.size === 0) return { status: 'nothing to look for' };
  // A control: a planted value in a log file of the run must be found, or the grep proves nothing.
  const canary = `canary-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const canaryFile = join(runDir, 'ud', 'logs', 'canary.log');
  mkdirSync(dirname(canaryFile), { recursive: true });
  writeFileSync(canaryFile, `a log line holding ${canary}\n`);
  const needles = [...values].map((v) => Buffer.from(v));
  const files = [...filesBelow(runDir), ...filesBelow(resultsDir)].filter((f) => f !== secretsFile && !f.endsWith('.png') && !f.endsWith('.vsix'));
  const hits = [];
  let canaryFound = false;
  for (const f of files) {
    let buf;
    try {
      buf = readFileSync(f);
    } catch {
      continue;
    }
    if (f === canaryFile) canaryFound = buf.includes(Buffer.from(canary));
    const n = needles.filter((v) => buf.includes(v)).length;
    if (n) hits.push(`${f}: ${n} value(s)`);
  }
  rmSync(canaryFile, { force: true });
  if (!canaryFound) return { status: 'BROKEN', detail: 'the control value planted in the run\'s logs was not found' };
  if (hits.length) {
    for (const h of hits) console.error(`[vscode-e2e] a token or code of the run is in ${h}`);
    return { status: 'FOUND', detail: hits.join('; ') };
  }
  return { status: 'clean', detail: `${values.size} tokens/codes, ${files.length} files` };
}
