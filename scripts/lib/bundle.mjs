// esbuild options shared by the scripts that bundle a TypeScript entry point for plain Node
// (the benchmark, the hostile-server table): one CJS bundle per entry, Node 20, linked sourcemaps.
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  // The SDK ships both ESM and CJS; prefer the CJS build inside a CJS bundle.
  mainFields: ['module', 'main'],
};
