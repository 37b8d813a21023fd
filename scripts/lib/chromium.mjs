// The browser of the real-VS-Code tests, from the npm registry: `@sparticuz/chromium` (a dev
// dependency) ships a Chromium build with the NSS/NSPR libraries it needs (al2023.tar.br), a
// SwiftShader GL (swiftshader.tar.br) and a font (fonts.tar.br), all brotli-compressed. They are
// unpacked once, side by side, into `${cache}/mcp-tasks-e2e/chromium-<version>/`:
//   chromium, libEGL.so, libGLESv2.so, libvk_swiftshader.so, …   (the binary finds its GL next to it)
//   al2023/lib/                                                   (NSS/NSPR: LD_LIBRARY_PATH)
//   fonts/                                                        (Open Sans + a fonts.conf that also
//                                                                  includes the system's fonts, if any)
// so the browser runs on a machine without any Chromium system library and without root.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { cacheRoot, ensureInstalled, log } from './cache.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Flags for this build in a container-like machine: no sandbox (no user namespaces needed), software GL. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--no-zygote',
  '--in-process-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  // Offline machine: no background connections (they would be refused, many at a time).
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function packageDir() {
  const dir = join(repoRoot, 'node_modules', '@sparticuz', 'chromium');
  if (!existsSync(join(dir, 'bin', 'chromium.br'))) {
    throw new Error(`${dir}/bin/chromium.br is missing: run \`npm ci\` first (@sparticuz/chromium is a dev dependency)`);
  }
  return dir;
}

/** Brotli-decompresses `file`; pipes the tar it holds into `tar -x -C dest`. */
function unpackTar(file, dest) {
  mkdirSync(dest, { recursive: true });
  const r = spawnSync('tar', ['-x', '-C', dest], { input: brotliDecompressSync(readFileSync(file)), stdio: ['pipe', 'inherit', 'inherit'] });
  if (r.error) throw new Error(`tar could not run (${r.error.message})`);
  if (r.status !== 0) throw new Error(`tar -x of ${file} exited with ${r.status}`);
}

/**
 * Unpacks the browser into the cache when needed; returns what `chromium.launch()` needs:
 * `{ executablePath, env, args, version }` (env: LD_LIBRARY_PATH and FONTCONFIG_PATH added).
 */
export function ensureChromium() {
  const pkg = packageDir();
  const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
  const dir = join(cacheRoot(), `chromium-${version}`);
  const label = `chromium (@sparticuz/chromium ${version})`;
  const complete = (d) => existsSync(join(d, 'chromium')) && existsSync(join(d, 'libEGL.so')) && existsSync(join(d, 'al2023', 'lib')) && existsSync(join(d, 'fonts', 'fonts.conf'));
  ensureInstalled(
    dir,
    label,
    complete,
    (tmp) => {
      const started = Date.now();
      log(`${label}: unpacking ${pkg}/bin/*.br …`);
      writeFileSync(join(tmp, 'chromium'), brotliDecompressSync(readFileSync(join(pkg, 'bin', 'chromium.br'))));
      chmodSync(join(tmp, 'chromium'), 0o755);
      unpackTar(join(pkg, 'bin', 'swiftshader.tar.br'), tmp);
      unpackTar(join(pkg, 'bin', 'al2023.tar.br'), join(tmp, 'al2023'));
      unpackTar(join(pkg, 'bin', 'fonts.tar.br'), join(tmp, 'fonts'));
      // The package's own fonts.conf names Lambda's folders; ours names the system's config and
      // the unpacked font, with a cache inside this folder.
      writeFileSync(
        join(tmp, 'fonts', 'fonts.conf'),
        [
          '<?xml version="1.0"?>',
          '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
          '<fontconfig>',
          '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
          `  <dir>${join(dir, 'fonts', 'fonts')}</dir>`,
          `  <cachedir>${join(dir, 'fonts', 'cache')}</cachedir>`,
          '</fontconfig>',
          '',
        ].join('\n'),
      );
      log(`${label}: … unpacked in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    },
    { what: 'the test browser ', from: 'node_modules/@sparticuz/chromium (npm ci)', hint: '≈ 5 s, ≈ 220 MB' },
  );
  const libs = join(dir, 'al2023', 'lib');
  const env = {
    ...process.env,
    LD_LIBRARY_PATH: [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter),
    FONTCONFIG_PATH: join(dir, 'fonts'),
  };
  return { executablePath: join(dir, 'chromium'), env, args: CHROMIUM_ARGS, version };
}

/** Launches the browser with playwright-core (`chromium.launch`), headless, signal handling left to the caller. */
export async function launchChromium(options = {}) {
  const { chromium } = await import('playwright-core');
  const browser = ensureChromium();
  return chromium.launch({
    executablePath: browser.executablePath,
    env: browser.env,
    args: [...browser.args, ...(options.args ?? [])],
    headless: true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    ...options,
    ...(options.args ? { args: [...browser.args, ...options.args] } : {}),
  });
}
