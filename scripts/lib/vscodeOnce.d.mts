import type { Plugin } from 'esbuild';
export declare const vscodeOnce: Plugin;
