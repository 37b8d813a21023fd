/**
 * One window of codeCache.test.ts in a process of its own (V8 keeps what it compiled in memory
 * for the process's life, so only a new process shows what a cache file gives): loads each
 * bundle through a CodeCache on the folder, calls a bundle's `part()` if it has one (a part loaded
 * at first need), writes the caches (as the window going does) and prints one JSON line: each
 * bundle's outcome, its exports, what `part()` returned, and the cache's last problem.
 *
 * Usage: node --import tsx codeCacheWindow.ts <cache folder> <bundle>...
 */
import { CodeCache } from '../../../src/core/startup/codeCache.js';

const [cacheDir, ...files] = process.argv.slice(2);
const cache = new CodeCache(cacheDir);
const exports: Record<string, unknown> = {};
const parts: Record<string, unknown> = {};
for (const file of files) {
  const e = cache.load(file) as { part?: () => unknown };
  exports[file] = e;
  if (typeof e.part === 'function') parts[file] = e.part();
}
cache.dispose();
console.log(JSON.stringify({ outcomes: Object.fromEntries(cache.outcomes), exports, parts, lastProblem: cache.problems.at(-1) ?? null }));
