/**
 * The last configuration of each file that parsed. While a file does not parse (a half-typed
 * edit saved by auto-save), its last good servers stay in force: nothing is stopped and no task
 * is dropped until the text parses again; then the registry restarts only the servers whose
 * definitions changed.
 */
import type { ParsedConfig, ServerDefinition } from './config.js';

/** What to use for one file: its servers now, and whether they are the last good ones kept over a parse error. */
export interface EffectiveConfig {
  readonly servers: readonly ServerDefinition[];
  /** True when the file does not parse and its last good servers were kept. */
  readonly keptLastGood: boolean;
}

export class LastGoodConfig {
  private readonly _byFile = new Map<string, readonly ServerDefinition[]>();

  /** The servers to use for `file` given its latest parse. */
  apply(file: string, parsed: ParsedConfig): EffectiveConfig {
    if (parsed.problems.some((p) => p.unparsable)) {
      const last = this._byFile.get(file);
      return last ? { servers: last, keptLastGood: true } : { servers: [], keptLastGood: false };
    }
    this._byFile.set(file, parsed.servers);
    return { servers: parsed.servers, keptLastGood: false };
  }

  /** The file is gone (deleted, its folder closed): its servers go too. */
  forget(file: string): void {
    this._byFile.delete(file);
  }

  /** Keeps only the files in `files` (the others were deleted or their folders closed). */
  retain(files: ReadonlySet<string>): void {
    for (const f of [...this._byFile.keys()]) if (!files.has(f)) this._byFile.delete(f);
  }
}

/**
 * Where `servers.<name>` is defined in an mcp.json text (1-based), for "Open mcp.json" on a server.
 * configText.ts, in the protocol part with the JSONC parser: activation parses neither.
 */
export function serverPosition(text: string, name: string): { line: number; column: number } | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return (require('./configText.js') as typeof import('./configText.js')).serverPosition(text, name);
}
