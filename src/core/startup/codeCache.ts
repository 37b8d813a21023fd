/**
 * Loading the extension's own bundles through a V8 code cache kept in the extension's global storage.
 *
 * Node compiles a bundle from its text at every `require`: `dist/extension.js` (≈ 270 KB) cost
 * ≈ 20 ms of CPU on a 2-core machine before `activate()` could run, most of what activation costs
 * (bench: "startup activation"). V8 can hand out what it compiled (`createCachedData`) and take
 * it back at a later load (`cachedData`), which skips most of that work. The extension host does
 * not do this for extensions (code-server 4.139, VS Code 1.139), and Node's own switch for it
 * (`module.enableCompileCache`) is process-wide: it would change how every other extension's
 * modules load, which is not this extension's to decide. So the extension loads its own bundles
 * this way, and only them.
 *
 * How a bundle is loaded, window after window:
 * - With no cache (a first window, a new version): by Node's `require`, exactly as without this
 *   loader. Some seconds after activation (or when the window goes), the bundle's text is compiled
 *   again aside and V8's code for it written as its first cache; so is each sibling bundle it
 *   required by then, or by the time the window goes (a part loaded at first need: `./protocol.js`).
 * - With a cache: compiled from it here, and run as Node runs a module. A first cache holds what V8
 *   compiles up front (the top level); after the first window that ran from it, the cache is
 *   written again with every function that window compiled, so later windows skip those too.
 *
 * What keeps it correct and the user's:
 * - A cache file is named by V8's version and the bundle file's size and modification time, so a
 *   bundle only meets data made from the file as it is (V8's own check compares the text's length,
 *   not its content: an update of the same length would run stale code). Not a hash of the text:
 *   `node:crypto` alone cost ≈ 7 ms to load, a third of what the cache saves; a file written anew
 *   (an update, a build) has a new modification time.
 * - V8 refuses data made by another build or with other flags (`cachedDataRejected`): the bundle
 *   then compiles from its text, and a new cache replaces the refused one.
 * - Nothing fails for the cache's sake: a folder that cannot be read or written means loading
 *   as Node does.
 * - The folder is in the user's global storage, which no workspace file reaches.
 *
 * A bundle compiled here is in `require.cache` under its own path, like one `require` loaded (the
 * parts read the extension's modules from there: scripts/lib/lazyParts.mjs), and its `require` of
 * a sibling bundle is loaded here too.
 *
 * Node's `Module` is used in this file only: a module object, the module cache, `createRequire`.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type { IDisposable } from '../base/lifecycle.js';

/** What loading one bundle did with the cache. */
export type CacheOutcome =
  /** Compiled from its cache. */
  | 'used'
  /** No cache for this file yet: loaded by Node's `require`, as without a cache; its cache is made later. */
  | 'missing'
  /** V8 refused the cache (another build, other flags): compiled from the text; a new cache is written later. */
  | 'refused'
  /** No folder for caches: loaded by Node's `require`. */
  | 'off';

/** How long after activation a cache is written: the functions activation and the first redraws compiled are in it then. */
export const WRITE_DELAY_MS = 5_000;
/** Cache files kept per bundle (the newest): this version's, and one for a window still running another version. */
const KEPT_PER_BUNDLE = 2;
/** The reasons kept of a window's cache problems (the log has them all). */
const MAX_PROBLEMS_KEPT = 20;

/** Node's module object, as far as this loader uses it. */
interface NodeModule {
  exports: unknown;
  filename: string;
  loaded: boolean;
  readonly children: NodeModule[];
}
const NodeModuleClass = Module as unknown as new (id: string, parent?: unknown) => NodeModule;

/** Node's function wrapper of a CommonJS module (the bundle's first line shares the wrapper's line, as under `require`). */
const WRAPPER_HEAD = Buffer.from('(function (exports, require, module, __filename, __dirname) { ');
const WRAPPER_TAIL = Buffer.from('\n});');

/**
 * A cache to write. `first`: a bundle Node loaded (no cache yet), compiled again aside for its
 * cache, which then holds the code V8 compiles up front (the bundle's top level). `after-run`: a
 * bundle compiled here, whose cache also holds every function it ran so far.
 */
type PendingWrite =
  | { readonly kind: 'first'; readonly file: string; readonly names: CacheNames }
  | { readonly kind: 'after-run'; readonly script: Script; readonly names: CacheNames };

/** A bundle's cache files: the one made after a run, and the first one (made aside, before any run). */
interface CacheNames {
  readonly full: string;
  readonly first: string;
}

/** What the entry tells the extension of its code cache (src/start.ts → extension.ts `activate`). */
export interface CodeCacheReport {
  readonly problems: readonly string[];
  onProblem(listener: (problem: string) => void): IDisposable;
}

export class CodeCache implements IDisposable, CodeCacheReport {
  private readonly _outcomes = new Map<string, CacheOutcome>();
  private readonly _pending: PendingWrite[] = [];
  /** Bundles Node loaded here (no cache yet), with their cache folder: parts they require later get first caches too. */
  private readonly _nodeLoaded = new Map<string, string>();
  private _timer: NodeJS.Timeout | undefined = undefined;
  private _disposed = false;
  private readonly _problems: string[] = [];
  private readonly _problemListeners = new Set<(problem: string) => void>();

  /** `dir`: the folder of the cache files (made when first written); undefined: no cache. */
  constructor(
    private readonly _dir: string | undefined,
    private readonly _writeDelayMs = WRITE_DELAY_MS,
  ) {}

  /** Why a cache could not be read or written, oldest first (at most {@link MAX_PROBLEMS_KEPT}): the loader never throws for it. */
  get problems(): readonly string[] {
    return this._problems;
  }

  /**
   * Tells `listener` each such reason from now on (the extension's log: a cache that cannot be written only makes
   * later windows slower, and without a word the user could not learn why).
   */
  onProblem(listener: (problem: string) => void): IDisposable {
    this._problemListeners.add(listener);
    return { dispose: () => void this._problemListeners.delete(listener) };
  }

  /** What each bundle's load did, by path. */
  get outcomes(): ReadonlyMap<string, CacheOutcome> {
    return this._outcomes;
  }

  /**
   * The exports of the CommonJS bundle at `file` (an absolute path), loaded once. With a cache
   * that fits, compiled from it; without one, loaded by Node's `require` exactly as without this
   * loader (compiling a bundle here from its text measured slower than Node's own loader), and
   * its cache is made later, aside. Throws what the bundle throws while it runs.
   */
  load(file: string): unknown {
    const cache = moduleCache();
    const loaded = cache[file] as NodeModule | undefined;
    if (loaded) return loaded.exports;
    if (this._dir === undefined) {
      this._outcomes.set(file, 'off');
      return createRequire(file)(file);
    }
    const names = cacheNames(this._dir, file);
    let data = this._read(names.full);
    const fromFirst = data === undefined;
    if (fromFirst) data = this._read(names.first);
    if (data === undefined) {
      this._outcomes.set(file, 'missing');
      const exports = createRequire(file)(file);
      this._nodeLoaded.set(file, this._dir);
      this._later({ kind: 'first', file, names });
      return exports;
    }
    const script = new Script(readWrapped(file), { filename: file, cachedData: data });
    const outcome: CacheOutcome = script.cachedDataRejected === true ? 'refused' : 'used';
    this._outcomes.set(file, outcome);

    const mod = new NodeModuleClass(file);
    mod.filename = file;
    cache[file] = mod as never;
    try {
      const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: NodeModule, filename: string, dirname: string) => void;
      wrapper.call(mod.exports, mod.exports, this._requireFor(file), mod, file, dirname(file));
    } catch (e) {
      // As Node does: a module that threw while it ran is not kept.
      delete cache[file];
      throw e;
    }
    mod.loaded = true;
    // A first cache holds the top level only; one made after this run holds what activation compiled too.
    if (outcome === 'refused' || fromFirst) this._later({ kind: 'after-run', script, names });
    return mod.exports;
  }

  /** Writes the caches waiting to be written. */
  flush(): void {
    clearTimeout(this._timer);
    this._timer = undefined;
    for (const write of this._pending.splice(0)) {
      switch (write.kind) {
        case 'first':
          this._writeFirst(write.file, write.names);
          break;
        case 'after-run':
          this._write(() => write.script.createCachedData(), write.names.full, write.names.first);
          break;
      }
    }
  }

  /** Writes what waits, and first caches of the parts loaded since (the window goes). */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this.flush();
    for (const [file, dir] of this._nodeLoaded) this._writeFirstOfParts(file, dir);
  }

  /** `file`'s `require`: a sibling bundle (`./name.js` beside it) loads here; anything else as Node loads it. */
  private _requireFor(file: string): NodeJS.Require {
    const nodeRequire = createRequire(file);
    const dir = dirname(file);
    const bundleRequire = ((id: string) => (/^\.\/[^/\\]+\.js$/.test(id) ? this.load(join(dir, id.slice(2))) : nodeRequire(id))) as NodeJS.Require;
    bundleRequire.resolve = nodeRequire.resolve;
    bundleRequire.cache = nodeRequire.cache;
    return bundleRequire;
  }

  private _problem(problem: string): void {
    if (this._problems.length < MAX_PROBLEMS_KEPT) this._problems.push(problem);
    for (const listener of [...this._problemListeners]) {
      // Nothing fails for the cache's sake, a listener's own failure (a log already closed) included.
      try {
        listener(problem);
      } catch {
        // The reason is still kept in `problems`.
      }
    }
  }

  private _read(cacheFile: string): Buffer | undefined {
    try {
      if (!exists(cacheFile)) return undefined;
      return readFileSync(cacheFile);
    } catch (e) {
      // No file, or no folder where the cache folder should be (a file there): no cache; writing says why once.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this._problem(`reading ${cacheFile}: ${String(e)}`);
      return undefined;
    }
  }

  private _later(write: PendingWrite): void {
    this._pending.push(write);
    if (this._disposed) return this.flush();
    if (this._timer) return;
    this._timer = setTimeout(() => this.flush(), this._writeDelayMs);
    this._timer.unref();
  }

  /**
   * The first cache of `file`, which Node loaded: its text compiled again aside (not run), and of each
   * sibling bundle it required meanwhile (a part loaded at first need), which a later window loads here.
   */
  private _writeFirst(file: string, names: CacheNames): void {
    this._write(compiledAside(file), names.first);
    this._writeFirstOfParts(file, dirname(names.first));
  }

  /** First caches in `cacheDir` of the sibling bundles Node loaded for `file` (the parts it required), those that have none. */
  private _writeFirstOfParts(file: string, cacheDir: string): void {
    const dir = dirname(file);
    const children = (moduleCache()[file] as NodeModule | undefined)?.children ?? [];
    for (const child of children) {
      if (dirname(child.filename) !== dir || !child.filename.endsWith('.js') || this._outcomes.has(child.filename)) continue;
      const names = cacheNames(cacheDir, child.filename);
      if (!exists(names.full) && !exists(names.first)) this._write(compiledAside(child.filename), names.first);
    }
  }

  /**
   * Writes `make()`'s data as `cacheFile` (a whole file or none: written aside, then renamed), then
   * drops `replaces` and older caches of the bundle.
   */
  private _write(make: () => Buffer, cacheFile: string, replaces?: string): void {
    const aside = `${cacheFile}.${process.pid}.tmp`;
    try {
      const data = make();
      mkdirSync(dirname(cacheFile), { recursive: true });
      writeFileSync(aside, data);
      renameSync(aside, cacheFile);
    } catch (e) {
      this._problem(`writing ${cacheFile}: ${String(e)}`);
      try {
        rmSync(aside, { force: true });
      } catch {
        // Nothing was written aside (the folder could not be made).
      }
      return;
    }
    try {
      if (replaces !== undefined) rmSync(replaces, { force: true });
      dropOlder(cacheFile);
    } catch (e) {
      // Another window may be dropping the same files.
      this._problem(`dropping older caches beside ${cacheFile}: ${String(e)}`);
    }
  }
}

/** Whether `file` exists: no file is the usual case in a first window, asked without an error made and thrown. */
function exists(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false }) !== undefined;
}

/** V8's code for the bundle at `file`, compiled aside (not run): what it compiles up front. */
function compiledAside(file: string): () => Buffer {
  return () => new Script(readWrapped(file), { filename: file }).createCachedData();
}

/**
 * A bundle's cache files in `dir`, named by the bundle and its key: V8's version, the file's size
 * and modification time (ms).
 */
function cacheNames(dir: string, file: string): CacheNames {
  const stat = statSync(file);
  const base = join(dir, `${basename(file, '.js')}-${process.versions.v8.replace(/[^\w.]/g, '_')}-${stat.size}-${Math.floor(stat.mtimeMs)}`);
  return { full: `${base}.bin`, first: `${base}.first.bin` };
}

/**
 * The bundle at `file` in Node's function wrapper, read into one buffer and made a string once (a
 * wrapper added to the text's string copied it again on the heap). An all-ASCII text (esbuild's
 * output) is made a string as Latin-1, exact for ASCII, with no decoding.
 */
function readWrapped(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    const buffer = Buffer.allocUnsafe(WRAPPER_HEAD.length + size + WRAPPER_TAIL.length);
    WRAPPER_HEAD.copy(buffer, 0);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, WRAPPER_HEAD.length + read, size - read, read);
      if (n === 0) throw new Error(`${file} ended after ${read} of its ${size} bytes`);
      read += n;
    }
    WRAPPER_TAIL.copy(buffer, WRAPPER_HEAD.length + size);
    return buffer.toString(isAscii(buffer) ? 'latin1' : 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Node's module cache (what `require.cache` is). */
function moduleCache(): NodeJS.Dict<NodeJS.Module> {
  return createRequire(__filename).cache;
}

/** A cache file's key and suffix ({@link cacheNames}). */
const KEY_AND_SUFFIX = /-[\w.]+-\d+-\d+(\.first)?\.bin$/;

/** Keeps the newest {@link KEPT_PER_BUNDLE} caches of the bundle `cacheFile` is one of. */
function dropOlder(cacheFile: string): void {
  const dir = dirname(cacheFile);
  const bundle = basename(cacheFile).replace(KEY_AND_SUFFIX, '');
  const same = readdirSync(dir)
    .filter((f) => f.startsWith(`${bundle}-`) && KEY_AND_SUFFIX.test(f) && f.replace(KEY_AND_SUFFIX, '') === bundle)
    .map((f) => ({ path: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of same.slice(KEPT_PER_BUNDLE)) if (old.path !== cacheFile) rmSync(old.path, { force: true });
}
