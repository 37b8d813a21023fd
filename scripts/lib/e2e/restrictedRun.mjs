// The Restricted Mode run: test/vscode/restricted/ in a fresh code-server with workspace trust
// enabled, on a folder that would spawn a marker-writing program and send a planted secret to a
// recording server if anything of it ran. The tests check both stayed untouched (and, as a
// control, that they do notice when the fixtures are started directly).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCodeServer } from '../codeServer.mjs';
import { startRecorder } from './fixtures.mjs';

const PLANTED = 'planted-secret-4f1c9a';

/**
 * Runs `module` through `runTests` against the Restricted Mode code-server (made below `dir`);
 * `track(server)` hands the server to the runner's last-resort cleanup.
 */
export async function runRestricted({ dir, resultsDir, module, grep, run, track }, runTests) {
  const ws = join(dir, 'ws');
  const markers = join(dir, 'markers');
  const requestLog = join(dir, 'requests.jsonl');
  for (const d of [join(ws, '.vscode'), markers]) mkdirSync(d, { recursive: true });
  const recorder = await startRecorder(requestLog);
  const marker = (name) => ({ type: 'stdio', command: process.execPath, args: ['-e', "require('fs').writeFileSync(process.argv[1], 'spawned')", join(markers, name)] });
  const http = (path, header) => ({ type: 'http', url: `${recorder.url}/${path}`, headers: { [header]: 'Bearer ${env:MCP_TASKS_E2E_PLANTED}' } });
  writeFileSync(join(ws, '.vscode', 'mcp.json'), JSON.stringify({ servers: { 'ws-stdio': marker('ws-stdio'), 'ws-http': http('ws-http', 'Authorization') } }, null, 2));
  writeFileSync(
    join(ws, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'mcpTasks.servers': { 'settings-stdio': marker('settings-stdio'), 'settings-http': http('settings-http', 'X-Api-Key') },
        'mcpTasks.workspaceServers.firstStart': 'allow',
        'editor.tabSize': 3, // a harmless setting: proves VS Code read this file
        // Limits and consent are the user's: neither applies from a workspace.
        'mcpTasks.requestor.ttlMs': 1234567,
        'mcpTasks.receiver.operationsPerSecond': 100000,
        'mcpTasks.sampling.modelByServer': { 'ws-http': 'some-other-model' },
      },
      null,
      2,
    ),
  );
  let srv;
  try {
    srv = await startCodeServer({
      runDir: join(dir, 'server'),
      logFile: join(resultsDir, 'code-server-restricted.log'),
      folder: ws,
      disableWorkspaceTrust: false,
      // No trust dialog at startup: the folder simply stays in Restricted Mode.
      settings: { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.untrustedFiles': 'open' },
      env: {
        MCP_TASKS_E2E_PLANTED: PLANTED,
        MCP_TASKS_E2E_RESTRICTED: JSON.stringify({ markers, requestLog, secret: PLANTED }),
        ...(run ? { MCP_TASKS_E2E_RUN: run } : {}),
        ...(grep ? { MCP_TASKS_E2E_GREP: grep } : {}),
        ...(process.stdout.isTTY ? { MCP_TASKS_E2E_COLOR: '1' } : {}),
      },
    });
    track(srv);
    return await runTests(module, 'the Restricted Mode suite', 'automation-restricted', srv);
  } finally {
    await srv?.stop().catch(() => {});
    recorder.stop();
  }
}
