// Parts of the extension that activation does not need (esbuild.mjs; tested in test/unit/scripts).

/**
 * Each part is a bundle of its own, parsed and evaluated at its first use: the extension's
 * `import()` of the part's entry (src/ui/formsLoader.ts) becomes a `require` of the sibling
 * bundle. A part must share no module with the extension bundle (a module in both would exist
 * twice, with two states): test/unit/scripts/lazyParts.test.ts checks it.
 */
export const LAZY_PARTS = [
  // The forms and RE2JS: needed at the first form (an elicitation, Run Tool's arguments).
  { entry: 'src/core/forms/elicitationForm.ts', outfile: 'dist/forms.js' },
];

/** The `import()` specifier of a part's entry, as src/ui imports it ("../core/forms/elicitationForm.js"), as a regular expression. */
function importedAs(entry) {
  const path = entry.replace(/^src\//, '').replace(/\.ts$/, '.js');
  return new RegExp(`/${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
}

/** For the extension's bundle: a dynamic import of a part's entry is the part's bundle, beside it. */
export const lazyParts = {
  name: 'lazy-parts',
  setup(build) {
    for (const part of LAZY_PARTS) {
      build.onResolve({ filter: importedAs(part.entry) }, (args) =>
        args.kind === 'dynamic-import' ? { path: `./${part.outfile.split('/').pop()}`, external: true } : undefined,
      );
    }
  },
};

/**
 * The extension bundle's options for its parts: `import()` as `require`, so a part is loaded as the
 * extension is itself, by the extension host's CommonJS loader, not through Node's ESM loader.
 */
export const LAZY_HOST_OPTIONS = { plugins: [lazyParts], supported: { 'dynamic-import': false } };
