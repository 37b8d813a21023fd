import type { BuildOptions, Plugin } from 'esbuild';
export declare const LAZY_PARTS: ReadonlyArray<{ readonly entry: string; readonly outfile: string }>;
export declare const lazyParts: Plugin;
export declare const LAZY_HOST_OPTIONS: { readonly plugins: Plugin[]; readonly supported: NonNullable<BuildOptions['supported']> };
