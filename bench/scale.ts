/**
 * Section 10 (`scale`), its connection rows (bench/README.md):
 * - **scale 20 servers**: the production bundle activated in a fresh process (activationMain.ts,
 *   `vscode` a stub) with 20 stdio servers (the demo server) in the user settings, from `activate()`
 *   to every server `running`; against the same with one server, and 20 bare SDK v2 clients
 *   connecting to 20 demo servers at once with a plain `initialize` (the spawn and handshake of 20
 *   servers with nothing of the extension), all measured in the same run, alternating.
 * - **scale auto negotiation**: one 2025 stdio server (the bench's SDK v1 requestor server, which
 *   knows nothing of 2026-07-28) connected by `McpConnection` in auto negotiation (the
 *   `server/discover` probe first, then `initialize`), against a bare SDK v2 `Client` in its own auto
 *   mode connecting to the same server, alternating.
 */
import { requestorSides } from '../src/core/requestor/hostSides.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { McpConnection } from '../src/core/connection/connection.js';
import { join } from 'node:path';
import { activationOnce, type ActivationRun } from './activation.js';
import { REQUESTOR_SERVER_JS, ROOT, childEnv, stdioServer } from './common.js';

const DEMO_SERVER_JS = join(ROOT, 'dist', 'demo-server.js');

function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/** Wall and CPU (ms) of one start. */
export interface StartFigure {
  readonly wallMs: number;
  readonly cpuMs: number;
}

export interface ServersRun {
  /** `activate()` + every server running, 1 and `servers` servers (the activation process's CPU). */
  readonly one: StartFigure;
  readonly many: StartFigure;
  /** `servers` bare SDK v2 clients connecting at once to as many demo servers (this process's CPU). */
  readonly bare: StartFigure;
}

const fromActivation = (r: ActivationRun): StartFigure => ({ wallMs: r.activateMs + r.startMs, cpuMs: r.activateCpuMs + r.startCpuMs });

/**
 * `servers` bare SDK v2 clients connecting to as many demo servers at once, in `legacy` mode (a
 * plain `initialize`): one spawn and one handshake per server, the least any host does. (In `auto`
 * mode the SDK's own stdio transport probes on a second, short-lived process per server: see the
 * auto negotiation row.)
 */
async function bareClients(servers: number): Promise<StartFigure> {
  const clients = Array.from({ length: servers }, () => new ClientV2({ name: 'bare-sdk-v2-client', version: '2.4.0' }, { capabilities: {}, versionNegotiation: { mode: 'legacy' } }));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    // stderr ignored: nothing here reads it, and an unread pipe could stall a server that logs.
    await Promise.all(clients.map((c) => c.connect(new StdioClientTransportV2({ command: process.execPath, args: [DEMO_SERVER_JS], env: childEnv(), stderr: 'ignore' }))));
    return { wallMs: performance.now() - t0, cpuMs: cpuMs(c0) };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  }
}

/** `runs` rounds of: activation with one server, with `servers`, and `servers` bare clients (the order rotating). */
export async function serversRuns(runs: number, servers: number): Promise<ServersRun[]> {
  // The extension's entry, as the extension host loads it (a fresh storage each run: no code cache yet, as in a first window).
  const bundle = join(ROOT, 'dist', 'start.js');
  const steps: Array<() => Promise<Partial<Record<keyof ServersRun, StartFigure>>>> = [
    async () => ({ one: fromActivation(await activationOnce(bundle, 1)) }),
    async () => ({ many: fromActivation(await activationOnce(bundle, servers)) }),
    async () => ({ bare: await bareClients(servers) }),
  ];
  // Unmeasured: the first processes after a build also pay for the OS reading the files.
  for (const s of steps) await s();
  const out: ServersRun[] = [];
  for (let r = 0; r < runs; r++) {
    let run: Partial<ServersRun> = {};
    for (let k = 0; k < steps.length; k++) run = { ...run, ...(await steps[(r + k) % steps.length]!()) };
    out.push(run as ServersRun);
  }
  return out;
}

export interface NegotiationRun {
  /** Start → connected (ms): the host's McpConnection, and the bare SDK v2 client. */
  readonly projectMs: number;
  readonly sdkMs: number;
  /** The protocol version each side ended on (a 2025 one, or the row measured something else). */
  readonly projectVersion: string;
  readonly sdkVersion: string;
}

async function projectConnect(): Promise<{ ms: number; version: string }> {
  const connection = new McpConnection(stdioServer('bench-2025', REQUESTOR_SERVER_JS), { sides: requestorSides(), variables: { env: process.env, workspaceFolder: ROOT } });
  try {
    const t0 = performance.now();
    await connection.start();
    const ms = performance.now() - t0;
    const state = connection.state;
    if (state.kind !== 'running') throw new Error(`the 2025 server did not connect: ${JSON.stringify(state)}`);
    return { ms, version: state.protocolVersion ?? '?' };
  } finally {
    connection.dispose();
  }
}

async function sdkConnect(): Promise<{ ms: number; version: string }> {
  const client = new ClientV2({ name: 'bare-sdk-v2-client', version: '2.4.0' }, { capabilities: { sampling: {}, elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
  try {
    const t0 = performance.now();
    await client.connect(new StdioClientTransportV2({ command: process.execPath, args: [REQUESTOR_SERVER_JS], env: childEnv(), stderr: 'pipe' }));
    return { ms: performance.now() - t0, version: client.getNegotiatedProtocolVersion() ?? '?' };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** `runs` connects per side to a fresh 2025 server each, alternating (project, SDK; SDK, project; …), after one unmeasured of each. */
export async function negotiationRuns(runs: number): Promise<NegotiationRun[]> {
  await projectConnect();
  await sdkConnect();
  const out: NegotiationRun[] = [];
  for (let r = 0; r < runs; r++) {
    const first = r % 2 === 0;
    const a = first ? await projectConnect() : undefined;
    const b = await sdkConnect();
    const p = a ?? (await projectConnect());
    out.push({ projectMs: p.ms, sdkMs: b.ms, projectVersion: p.version, sdkVersion: b.version });
  }
  return out;
}
