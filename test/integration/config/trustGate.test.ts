/**
 * The start gate with real processes and a real HTTP listener (issue 19, finding 2): a
 * workspace's stdio and http servers are neither spawned, contacted nor variable-expanded while
 * the workspace is untrusted; in a trusted one the first start waits for the user's answer,
 * remembered per definition fingerprint. The registry is driven exactly as the extension drives
 * it (`mayStart` = decideStart + the consent store + an "ask" standing in for the modal dialog).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMcpConfig, type ServerDefinition, type VariableContext } from '../../../src/core/config/config.js';
import { ConsentStore } from '../../../src/core/config/consent.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { declinedReason, decideStart } from '../../../src/core/config/trust.js';
import { fixture, MemoryLog, ScriptedResponders, waitFor } from '../../helpers/host.js';

const PLANTED = 'planted-secret-7d2e';
const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-gate-'));
const ledger = new TaskLedger();
const disposables: Array<{ dispose(): void }> = [ledger];

/** Every request the recording server got. */
const recorded: Array<{ url?: string; headers: IncomingHttpHeaders }> = [];
const recorder = createServer((req, res) => {
  recorded.push({ url: req.url, headers: req.headers });
  req.resume();
  res.writeHead(500).end();
});
const recorderUrl = new Promise<string>((resolve) => recorder.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(recorder.address() as { port: number }).port}`)));
after(() => {
  disposables.forEach((d) => d.dispose());
  recorder.close();
  rmSync(dir, { recursive: true, force: true });
});

const WS = { kind: 'workspace', file: '/repo/.vscode/mcp.json', folder: '/repo' } as const;

/** The attacker's mcp.json: a program that leaves a marker, and an http server that would get `${env:…}`. */
async function workspaceServers(): Promise<ServerDefinition[]> {
  const { servers, problems } = parseMcpConfig(WS, {
    servers: {
      'ws-stdio': { type: 'stdio', command: process.execPath, args: ['-e', "require('fs').writeFileSync(process.argv[1], 'x')", join(dir, 'ws-stdio')] },
      'ws-http': { type: 'http', url: `${await recorderUrl}/mcp`, headers: { Authorization: `Bearer \${env:PLANTED}` } },
    },
  });
  assert.deepEqual(problems, []);
  return servers;
}

/** Variables whose `env` records every read (a read is an expansion of `${env:…}`). */
function spyVariables(reads: string[]): VariableContext {
  const env = new Proxy({ PLANTED } as Record<string, string | undefined>, {
    get: (t, k) => {
      reads.push(String(k));
      return t[k as string];
    },
  });
  return { env };
}

function gatedRegistry(opts: { trusted: () => boolean; ask: (def: ServerDefinition) => Promise<boolean>; envReads: string[] }) {
  let stored: unknown;
  const consents = new ConsentStore({ get: () => stored, set: async (v) => void (stored = v) });
  const asked: string[] = [];
  const registry = new ServerRegistry({
    ledger,
    responders: new ScriptedResponders(),
    logFor: () => new MemoryLog(),
    variablesFor: () => spyVariables(opts.envReads),
    restart: { maxCrashes: 0 },
    mayStart: async (def) => {
      const d = decideStart(def, { workspaceTrusted: opts.trusted(), approved: (fp) => consents.has('firstStart', fp), firstStart: 'ask' });
      if (d.kind === 'start') return true;
      if (d.kind === 'block') return d.reason;
      asked.push(`${def.name} ${d.launch.text}`);
      if (!(await opts.ask(def))) return declinedReason(def);
      await consents.grant('firstStart', def);
      return true;
    },
  });
  disposables.push(registry);
  return { registry, consents, asked };
}

describe('start gate: workspace servers in an untrusted workspace (finding 2)', () => {
  test('stdio and http servers from .vscode/mcp.json: nothing spawned, no request sent, no ${env:} read — on open and on an explicit start', async () => {
    const envReads: string[] = [];
    const { registry, asked } = gatedRegistry({ trusted: () => false, ask: async () => true, envReads });
    await registry.setDefinitions(await workspaceServers());
    for (const id of ['ws-stdio', 'ws-http']) await registry.start(id);
    await registry.reevaluate();
    for (const id of ['ws-stdio', 'ws-http']) {
      const s = registry.get(id)!.state;
      assert.ok(s.kind === 'blocked' && /not trusted/.test(s.reason), `${id}: ${JSON.stringify(s)}`);
    }
    assert.deepEqual(asked, [], 'an untrusted workspace is not even asked about');
    assert.deepEqual(readdirSync(dir), [], 'no program was spawned');
    assert.deepEqual(recorded, [], 'no request was sent');
    assert.deepEqual(envReads, [], 'no ${env:…} was expanded');
  });

  test('trusted later and the first start declined: the server says it was not approved, no longer "not trusted"', async () => {
    let trusted = false;
    const { registry, asked } = gatedRegistry({ trusted: () => trusted, ask: async () => false, envReads: [] });
    await registry.setDefinitions(await workspaceServers());
    const s = () => registry.get('ws-stdio')!.state;
    assert.ok(s().kind === 'blocked' && /not trusted/.test((s() as { reason: string }).reason), JSON.stringify(s()));
    trusted = true;
    await registry.reevaluate();
    assert.deepEqual(asked.length, 2, 'both servers were asked about once trusted');
    const after = s();
    assert.ok(after.kind === 'blocked', JSON.stringify(after));
    assert.match(after.reason, /you did not approve starting "ws-stdio"/);
    assert.doesNotMatch(after.reason, /not trusted/);
    assert.deepEqual(readdirSync(dir), [], 'declined: nothing was spawned');
  });

  test('control: past the gate, the same fixtures do spawn, send and read the environment (so the test above can fail)', async () => {
    const envReads: string[] = [];
    const { registry } = gatedRegistry({ trusted: () => true, ask: async () => true, envReads });
    await registry.setDefinitions(await workspaceServers());
    await waitFor(registry.onDidChangeState, () => existsSync(join(dir, 'ws-stdio')) && recorded.length > 0, 'the marker and a recorded request', 20_000).catch(() => undefined);
    assert.ok(existsSync(join(dir, 'ws-stdio')), 'the stdio fixture wrote its marker');
    assert.equal(recorded[0]?.headers.authorization, `Bearer ${PLANTED}`);
    assert.ok(envReads.includes('PLANTED'));
    await registry.setDefinitions([]);
    rmSync(join(dir, 'ws-stdio'), { force: true });
    recorded.length = 0;
  });
});

describe('start gate: first start in a trusted workspace asks, remembered per fingerprint', () => {
  const probe = (args: string[] = []): ServerDefinition => {
    const { servers } = parseMcpConfig(WS, { servers: { probe: { type: 'stdio', command: process.execPath, args: [fixture('probeServer'), ...args] } } });
    return servers[0]!;
  };

  test('nothing runs while the question is open; "no" blocks (asked again on the next start); "yes" starts and is remembered; an edited definition asks again', async () => {
    let answer!: (yes: boolean) => void;
    let questions = 0;
    const ask = () => {
      questions++;
      return new Promise<boolean>((r) => (answer = r));
    };
    const { registry, consents, asked } = gatedRegistry({ trusted: () => true, ask, envReads: [] });

    const settled = registry.setDefinitions([probe()]);
    await waitFor(registry.onDidChangeConnections, () => questions === 1, 'the question');
    assert.equal(registry.get('probe')!.state.kind, 'stopped', 'not started while the user decides');
    answer(false);
    await settled;
    const declined = registry.get('probe')!.state;
    assert.ok(declined.kind === 'blocked' && /did not approve/.test(declined.reason), JSON.stringify(declined));
    assert.equal(consents.list().length, 0);

    const started = registry.start('probe'); // asks synchronously, before its first await
    assert.equal(questions, 2, 'a declined server asks again when started');
    answer(true);
    await started;
    assert.equal(registry.get('probe')!.state.kind, 'running');
    assert.equal(consents.list('firstStart').length, 1);

    // Restart: remembered, no question.
    await registry.restart('probe');
    assert.equal(registry.get('probe')!.state.kind, 'running');
    assert.equal(questions, 2);

    // The definition changes (same file, same name): asked again, with the new command line.
    const edited = registry.setDefinitions([probe(['--edited'])]);
    await waitFor(registry.onDidChangeConnections, () => questions === 3, 'the question about the edited definition');
    assert.match(asked[2]!, /probeServer\.js --edited$/);
    answer(true);
    await edited;
    assert.equal(registry.get('probe')!.state.kind, 'running');
    await registry.setDefinitions([]);
  });
});
