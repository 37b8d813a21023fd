// Parts of the extension that activation does not need (esbuild.mjs; tested in test/unit/scripts).
import * as esbuild from 'esbuild';
import { basename, join, relative, resolve } from 'node:path';
import { lazyBuiltins } from './lazyBuiltins.mjs';
import { vscodeOnce } from './vscodeOnce.mjs';

/**
 * Each part is a bundle of its own, parsed and evaluated at its first use, not at activation
 * (bench: "startup load + activation, no server").
 *
 * - `serves`: the modules of src the part holds for the extension. In the extension's bundle an
 *   `import()` or a `require()` of one of them becomes a `require` of the part's bundle (beside
 *   it); a static `import` of one would put the module back into the extension's bundle, and
 *   test/unit/scripts/lazyParts.test.ts fails then.
 * - `shared`: false — the part shares no module with the extension's bundle (a module in both
 *   would exist twice, with two states; the test checks there is none). true — every module the
 *   part needs that the extension's bundle holds already (the core's base, config, receiver; zod)
 *   is the extension's own, read from the loaded extension (its `__shared` export), so it exists once.
 */
export const LAZY_PARTS = [
  // The forms and RE2JS: needed at the first form (an elicitation, Run Tool's arguments).
  { name: 'forms', serves: ['src/core/forms/elicitationForm.ts'], outfile: 'dist/forms.js', shared: false },
  // The checks on zod/mini of what a window may read at start-up: the settings' schemas, needed right after activation by the
  // first \`mcpTasks.*\` value the user has set (src/core/config/settings.ts), and the stored sent tasks', needed
  // right after it when an earlier window left some (src/core/requestor/trackerStore.ts). The SDK and zod's classic API wait for a server.
  { name: 'checks', serves: ['src/core/config/settingSchemas.ts', 'src/core/requestor/storedTasks.ts'], outfile: 'dist/checks.js', shared: true },
  // The SDK, the connection to a server (transports, OAuth) and the task wires: needed when the
  // first server is configured (src/core/connection/registry.ts) or signed in to (src/ui/servers/signIn.ts).
  {
    name: 'protocol',
    serves: [
      'src/core/connection/connection.ts',
      'src/core/connection/auth/authFactory.ts',
      'src/core/requestor/wire/select.ts',
      // The sides a connection installs (the task wire, the receiver's side on the ledger).
      'src/core/requestor/hostSides.ts',
      // zod and the schemas: at the first value to check (an mcp.json, a call).
      'src/core/config/mcpJson.ts',
      // Editing and positions in an mcp.json's text (JSONC): at a command or a server's error.
      'src/core/config/configText.ts',
      'src/core/config/consentRecords.ts',
      'src/core/connection/processJournalEntries.ts',
      'src/core/api/apiSchemas.ts',
      'src/core/agent/agentInputSchemas.ts',
    ],
    outfile: 'dist/protocol.js',
    shared: true,
  },
];

/** The bundle of the extension itself. */
export const HOST_OUTFILE = 'dist/extension.js';

/** A path as the metafile and `serves` name it: relative to the repository, `/`-separated. */
function repoPath(root, path) {
  return relative(root, path).split('\\').join('/');
}

/**
 * The extension's bundle: an `import()` or `require()` of a module a part serves is the part's
 * bundle; `shared` adds the `__shared` export (the modules the parts read from it).
 */
export function hostPlugin(root) {
  return {
    name: 'lazy-parts-host',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import' && args.kind !== 'require-call') return undefined;
        const target = repoPath(root, resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')));
        const part = LAZY_PARTS.find((p) => p.serves.includes(target));
        if (!part) return undefined;
        // One module served: the part is that module. Several: the part keeps each under its path.
        return { path: target, namespace: 'lazy-part', pluginData: { part } };
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-part' }, (args) => {
        const { part } = args.pluginData;
        const file = JSON.stringify(`./${basename(part.outfile)}`);
        return { contents: part.serves.length === 1 ? `module.exports = require(${file});` : `module.exports = require(${file}).modules[${JSON.stringify(args.path)}];`, loader: 'js', resolveDir: root };
      });
      build.onResolve({ filter: /^\.\/[^/]+\.js$/, namespace: 'lazy-part' }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/** A part's bundle: every module in `fromHost` is read from the extension's bundle (`__shared`), not bundled again. */
function partPlugin(root, fromHost) {
  return {
    name: 'lazy-parts-part',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.namespace === 'lazy-host' || args.pluginData?.lazyPartsInner) return undefined;
        if (args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { lazyPartsInner: true } });
        if (resolved.errors.length || resolved.external) return undefined;
        const path = repoPath(root, resolved.path);
        // `.cjs`: the stand-in is CommonJS whatever the module is (an `.mjs` path would make it ESM with no exports).
        return fromHost.has(path) ? { path: `${path}.host.cjs`, namespace: 'lazy-host', pluginData: { key: path } } : undefined;
      });
      // The extension's own instance, as loaded (the module cache): never a second copy of it, whose modules would be new ones.
      build.onLoad({ filter: /.*/, namespace: 'lazy-host' }, (args) => ({
        contents: [
          `const host = require.cache[require.resolve(${JSON.stringify(`./${basename(HOST_OUTFILE)}`)})];`,
          `if (!host || !host.exports.__shared) throw new Error('this part of MCP Tasks is loaded by ${basename(HOST_OUTFILE)} only, once that is loaded');`,
          `module.exports = host.exports.__shared[${JSON.stringify(args.pluginData.key)}];`,
        ].join('\n'),
        loader: 'js',
      }));
      build.onResolve({ filter: /^\.\/[^/]+\.js$/, namespace: 'lazy-host' }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/** The entry of a part that serves several modules: each module's namespace under its path. */
function partEntry(root, part) {
  const lines = part.serves.map((p, i) => `import * as m${i} from ${JSON.stringify(`./${p}`)};`);
  lines.push(`export const modules = { ${part.serves.map((p, i) => `${JSON.stringify(p)}: m${i}`).join(', ')} };`);
  return { contents: lines.join('\n'), resolveDir: root, sourcefile: `${part.name}-part.ts`, loader: 'ts' };
}

/** The entry of the extension's bundle: the extension, and `__shared` (each module the parts read from it, under its path). */
function hostEntry(root, entry, shared) {
  const paths = [...shared].sort();
  const lines = [`export * from ${JSON.stringify(`./${entry}`)};`];
  paths.forEach((p, i) => lines.push(`import * as s${i} from ${JSON.stringify(p.startsWith('src/') ? `./${p}` : join(root, p))};`));
  // `__esModule`: a part's `import x from` reads a module's own default export, as in one bundle.
  lines.push(`const mark = (ns) => Object.defineProperty(ns, '__esModule', { value: true });`);
  lines.push(`export const __shared = { ${paths.map((p, i) => `${JSON.stringify(p)}: mark(s${i})`).join(', ')} };`);
  return { contents: lines.join('\n'), resolveDir: root, sourcefile: 'extension-entry.ts', loader: 'ts' };
}

/**
 * The build options of the extension's bundle and of its parts (esbuild.mjs, the test). The
 * modules a shared part reads from the extension are found first: the inputs of both bundles,
 * built without writing; then the bundles are built with them.
 *
 * @param common esbuild options for every bundle (plugins included); `root` the repository;
 * `outdir` where the bundles go (dist/ by default).
 */
export async function extensionBuilds(common, { root, entry = 'src/extension.ts', outdir } = {}) {
  const out = (file) => (outdir ? join(outdir, basename(file)) : file);
  const host = { ...common, external: ['vscode'], supported: { 'dynamic-import': false } };
  const probe = (options) => esbuild.build({ ...options, absWorkingDir: root, write: false, metafile: true, logLevel: 'silent', sourcemap: false, minify: false });
  const hostInputs = probe({ ...host, entryPoints: [entry], outfile: out(HOST_OUTFILE), plugins: [...common.plugins, vscodeOnce, lazyBuiltins, hostPlugin(root)] });
  const parts = LAZY_PARTS.map((part) => ({
    part,
    options: { ...common, outfile: out(part.outfile), ...(part.serves.length === 1 ? { entryPoints: [part.serves[0]] } : { stdin: partEntry(root, part) }) },
  }));
  // Files only: not the stand-ins of this plugin or another's (`namespace:path`).
  const files = (metafile) => Object.keys(metafile.inputs).filter((p) => !/^[a-z-]+:/.test(p)).map((p) => repoPath(root, join(root, p)));
  const hostSet = new Set(files((await hostInputs).metafile));
  const shared = new Set();
  for (const { part, options } of parts) {
    if (!part.shared) continue;
    const built = await probe(options);
    for (const path of files(built.metafile)) {
      if (hostSet.has(path) && !part.serves.includes(path)) shared.add(path);
    }
  }
  return {
    shared,
    host: { ...host, stdin: hostEntry(root, entry, shared), outfile: out(HOST_OUTFILE), plugins: [...common.plugins, vscodeOnce, lazyBuiltins, hostPlugin(root)] },
    parts: parts.map(({ part, options }) => ({ ...options, plugins: [...common.plugins, ...(part.shared ? [partPlugin(root, shared)] : [])] })),
  };
}
