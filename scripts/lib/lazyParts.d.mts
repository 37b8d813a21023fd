import type { BuildOptions, Plugin } from 'esbuild';
export declare const LAZY_PARTS: ReadonlyArray<{ readonly name: string; readonly serves: readonly string[]; readonly outfile: string; readonly shared: boolean }>;
export declare const HOST_OUTFILE: string;
export declare function hostPlugin(root: string): Plugin;
export declare function extensionBuilds(
  common: BuildOptions & { plugins: Plugin[] },
  options: { readonly root: string; readonly entry?: string; readonly outdir?: string },
): Promise<{ readonly shared: ReadonlySet<string>; readonly host: BuildOptions; readonly parts: BuildOptions[] }>;
