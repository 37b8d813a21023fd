/**
 * The server host's process (its own bundle, `dist/serverHost.js`): `node serverHost.js --dir <folder>`.
 * Started detached by a window (launch.ts), with no stdio of its own; it checks its folder and token,
 * listens, and exits once it owns no server and nobody is connected. A second host started at the
 * same time finds the first listening and exits.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPrivateDir, readToken } from './privateDir.js';
import { ServerHost } from './serverHost.js';

async function main(): Promise<void> {
  const i = process.argv.indexOf('--dir');
  const dir = i >= 0 ? process.argv[i + 1] : undefined;
  if (!dir) process.exit(2);
  await checkPrivateDir(dir);
  const token = await readToken(dir);
  const idle = Number(process.env.MCP_TASKS_HOST_IDLE_MS);
  // A log only when asked for (tests, diagnosis): the host has no stdio of its own.
  const logFile = process.env.MCP_TASKS_HOST_LOG ? join(dir, 'host.log') : undefined;
  const log = logFile ? (line: string) => appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 }) : undefined;
  const host = new ServerHost({ dir, token, idleMs: Number.isFinite(idle) && idle > 0 ? idle : undefined, log, idle: () => void host.close().then(() => process.exit(0)) });
  const stop = () => void host.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Detached from any terminal; a hang-up is not a reason to end the servers.
  process.on('SIGHUP', () => undefined);
  try {
    await host.listen();
  } catch {
    // Another host listens there: it owns the servers.
    process.exit(0);
  }
}

void main().catch(() => process.exit(1));
