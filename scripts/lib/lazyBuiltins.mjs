// An esbuild plugin for the extension's bundle (scripts/lib/lazyParts.mjs; tested in test/unit/scripts).

/**
 * Node built-ins the extension's bundle uses, but not while it loads and activates with nothing to
 * do, loaded at their first call instead of when the bundle is evaluated: loading `node:crypto`
 * and `node:fs/promises` is ≈ 4 ms CPU in a fresh process (bench: "startup load + activation, no
 * server"). Only the functions named here can be imported from them in the bundle: another name
 * fails the build ("No matching export"), so nothing can silently be undefined.
 */
const LAZY = {
  'node:crypto': ['createHash', 'createHmac', 'randomBytes', 'randomUUID'],
  'node:fs/promises': ['appendFile', 'mkdir', 'open', 'rename', 'stat', 'writeFile'],
};

export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(LAZY).map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`);
    build.onResolve({ filter }, (args) => (args.namespace === 'lazy-builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'lazy-builtin' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: [`let m;`, `const get = () => (m ??= require(${JSON.stringify(args.path)}));`, ...LAZY[args.path].map((f) => `export function ${f}(...a) { return get().${f}(...a); }`)].join('\n'),
      loader: 'js',
    }));
  },
};
