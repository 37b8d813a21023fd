/**
 * Edits and positions in the text of an `mcp.json` (JSONC), for the commands that add a server
 * and open a server's definition. In the protocol part (scripts/lib/lazyParts.mjs) with the JSONC
 * parser mcpJson.ts parses the file with: needed at a command or a server's error, not at
 * activation (config.ts and lastGood.ts require it there).
 */
import { applyEdits, findNodeAtLocation, modify, parse as parseJsonc, parseTree, type ParseError } from 'jsonc-parser';

/**
 * Adds (or replaces) one server in the text of an `mcp.json`, keeping everything else —
 * comments and formatting included. Throws if the text is not valid JSONC (so nothing is lost).
 */
export function addServerToConfigText(text: string, name: string, server: Record<string, unknown>): string {
  const source = text.trim() === '' ? '{}' : text;
  const errors: ParseError[] = [];
  const root = parseJsonc(source, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new Error('the file is not a valid JSON object; fix it first (nothing was changed)');
  }
  const edits = modify(source, ['servers', name], server, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
  return applyEdits(source, edits);
}

/** Where `servers.<name>` is defined in an mcp.json text (1-based), for "Open mcp.json" on a server. */
export function serverPosition(text: string, name: string): { line: number; column: number } | undefined {
  const node = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, ['servers', name]);
  const offset = node?.parent?.offset ?? node?.offset;
  if (offset === undefined) return undefined;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
