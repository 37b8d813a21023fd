// The test workspace's .vscode/mcp.json, for tests that change it for a while: its text as the
// test found it, a writer that makes the extension read it at once, and that text with one more
// server entry (as a person would type it: the last entry of "servers").
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../src/extension';

export async function workspaceMcpJson(api: McpTasksApi) {
  const file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'mcp.json');
  const uri = vscode.Uri.file(file);
  const original = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const write = async (text: string): Promise<void> => {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    await api.config.reload();
  };
  return {
    file,
    original,
    write,
    /** The original text with `entryText` (JSON as typed, possibly cut off) as the server `name`, after the others. */
    withEntry(name: string, entryText: string): string {
      const text = original.replace(/\n  }\n}\s*$/, `,\n    ${JSON.stringify(name)}: ${entryText}\n  }\n}\n`);
      if (text === original) throw new Error(`${file} does not end as the tests expect ("servers" last)`);
      return text;
    },
    restore: () => write(original),
  };
}
