// An esbuild plugin for every bundle that takes zod in (esbuild.mjs; tested in test/unit/scripts).
import { dirname, join } from 'node:path';

/**
 * zod's `z.locales` (every language's error messages, ≈ 260 KB minified) is kept whole in a bundle
 * as soon as code uses the `z` namespace as a value, as the SDK does — though only English is ever
 * used (zod's schemas import `locales/en.js` themselves; nothing here calls `z.config(z.locales.…)`).
 * `z.locales` is narrowed to English: a fifth less to parse at every activation.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/](external|index)\.js$/.test(args.importer) ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: dirname(args.path) }));
  },
};
