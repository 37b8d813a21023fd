// The cache of the e2e toolchain (`${XDG_CACHE_HOME:-~/.cache}/mcp-tasks-e2e/`) and the one way
// anything is installed into it: into a temp sibling folder, renamed into place once complete.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The cache folder shared by all e2e toolchains. */
export function cacheRoot() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'mcp-tasks-e2e');
}

export const log = (msg) => console.error(`[toolchain] ${msg}`);
export const seconds = (t) => `${((Date.now() - t) / 1000).toFixed(0)} s`;

/** An install failure that explains itself in one paragraph (no stack trace for the user). */
export class ToolchainError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToolchainError';
  }
}

/**
 * Returns `dir` when `isComplete(dir)` holds; otherwise installs into `dir.tmp-<pid>` with
 * `install(tmp)`, checks it, and renames it to `dir`. Leftover temp folders and an incomplete
 * `dir` from an earlier run are removed first.
 */
export function ensureInstalled(dir, label, isComplete, install, { what, hint, from = 'the npm registry' } = {}) {
  if (isComplete(dir)) return dir;
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const base = dir.slice(parent.length + 1);
  for (const name of readdirSync(parent)) {
    if (name.startsWith(`${base}.tmp-`)) {
      const pid = Number(name.slice(`${base}.tmp-`.length));
      if (!isAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
    }
  }
  if (existsSync(dir)) {
    log(`${label}: removing incomplete install at ${dir}`);
    rmSync(dir, { recursive: true, force: true });
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const started = Date.now();
  log(`${label}: not in the cache yet; installing ${what ?? ''}from ${from} into ${dir} (first run only${hint ? `, ${hint}` : ''})`);
  try {
    install(tmp);
    if (!isComplete(tmp)) throw new Error(`the install finished but ${tmp} is incomplete`);
    writeFileSync(join(tmp, '.complete'), new Date().toISOString() + '\n');
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another process finished the same install first: use theirs.
      if (!isComplete(dir)) throw err;
      rmSync(tmp, { recursive: true, force: true });
    }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw new ToolchainError(
      `Could not install ${label} into ${dir}: ${err?.message ?? err}. ` +
        'It comes from the npm registry only (check that `npm ping` answers and any proxy settings), needs about 1 GB free under ' +
        `${parent} and, for code-server, g++, make and python3 to build its native modules. Nothing half-installed is kept: ` +
        'run the same command again to retry; the output of the step that failed is just above.',
    );
  }
  log(`${label}: installed in ${seconds(started)}`);
  return dir;
}

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
