/**
 * The official "everything" server (`@modelcontextprotocol/server-everything`, a devDependency)
 * as a real third-party server: started from node_modules with plain `node`, no network.
 * Its task tools (`trigger-sampling-request-async`, `trigger-elicitation-request-async`,
 * `simulate-research-query`) are registered only for clients that declare task capabilities.
 * No import of the project's test helpers: the VS Code suite uses this file too (bundled).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './freePort.js';

/** The server's entry point below a checkout's root (argument: `stdio` or `streamableHttp`). */
export function everythingEntry(root: string): string {
  return join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
}

export { freePort };

/**
 * Starts the server over Streamable HTTP (`node <entry> streamableHttp`, PORT from the
 * environment) and resolves with its `/mcp` URL once it says it listens; rejects if it exits
 * first or does not start within `ms`. `node` is `process.execPath` unless given; `fixedPort` a free
 * one unless given (the port of a server that was stopped: the same server restarted).
 */
export async function startEverythingHttp(entry: string, ms: number, node = process.execPath, fixedPort?: number): Promise<{ url: string; child: ChildProcess }> {
  const port = fixedPort ?? (await freePort());
  const child = spawn(node, [entry, 'streamableHttp'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PORT: String(port) } });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the everything server did not start on port ${port}: ${err}`)), ms);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the everything server exited (${code}): ${err}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}
