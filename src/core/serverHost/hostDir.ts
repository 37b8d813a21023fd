/** Where the server host's private folder is (privateDir.ts makes and checks it); no dependency, read at activation. */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** `$XDG_RUNTIME_DIR/mcp-tasks` (a folder already private to the user), else `<tmp>/mcp-tasks-<uid>`. */
export function defaultHostDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime) return join(runtime, 'mcp-tasks');
  return join(tmpdir(), `mcp-tasks-${userInfo().uid}`);
}
