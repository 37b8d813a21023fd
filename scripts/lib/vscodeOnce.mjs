// An esbuild plugin for the extension's bundle (scripts/lib/lazyParts.mjs; tested in test/unit/scripts).

/**
 * Every module that imports `vscode` made the bundle copy the whole API onto a namespace object of
 * its own at load (`__toESM(require("vscode"))`: a getter per name, for hundreds of names, in each
 * of 35 modules). The modules import one module that re-exports `vscode` instead: one copy, made
 * once (bench: "startup load + activation, no server").
 */
export const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' }));
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: 'export * from "vscode";', loader: 'js' }));
  },
};
