import type { Plugin } from 'esbuild';
export declare const lazyBuiltins: Plugin;
