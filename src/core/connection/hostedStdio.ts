/**
 * A stdio server started through the server host (serverHost/), so it outlives the window: the
 * server of before reattached when the host still runs it with the same definition, else a new one
 * spawned (the old one ended first when its definition changed). Only ever reached after the
 * connection's gate said yes (connection.ts `_connect`): the host spawns only what a window asks.
 */
import { createHash } from 'node:crypto';
import type { RedactingLog } from '../base/redact.js';
import type { ServerDefinition } from '../config/config.js';
import { definitionKey } from '../config/config.js';
import { describeEnd, type SpawnSpec } from '../serverHost/frames.js';
import type { ServerHostClient, ServerHostLaunch } from '../serverHost/launch.js';
import type { HostLink } from '../serverHost/hostLink.js';
import { errorMessage } from '../base/errors.js';
import { HostedTransport } from './hostedTransport.js';
import type { SavedSession } from './httpSession.js';

/** The window's server host, as a connection uses it. */
export interface StdioHost {
  readonly client: ServerHostClient;
  /** How long the host keeps a server no window is attached to (the `mcpTasks.serverHost.graceSeconds` setting). */
  readonly graceMs: () => number;
  /** Whether `definition`'s server runs in the host (off: spawned by the window, as before). */
  readonly hosts: (definition: ServerDefinition) => boolean;
}

/**
 * The server host as the window's settings describe it (registry.ts makes the {@link StdioHost}
 * of it, and its client, at the first connection: the client is in the protocol part).
 */
export interface StdioHostSettings {
  readonly launch: ServerHostLaunch;
  readonly graceMs: () => number;
  readonly hosts: (definition: ServerDefinition) => boolean;
}

/** The key a hosted server's session is kept under (beside the Streamable HTTP sessions: httpSession.ts). */
export function hostedSessionKey(definition: Pick<ServerDefinition, 'name' | 'source'>): string {
  return `stdio-host ${definitionKey(definition)}`;
}

/**
 * What a running server was started from: its command, arguments, environment, folder and the
 * contents of its envFile (not the window's own environment, which differs between windows). A
 * reattach is to a server of the same fingerprint only.
 */
export function hostedFingerprint(def: { readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string | null>>; readonly cwd?: string }, envFileText: string | undefined): string {
  const env = Object.entries(def.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([def.command, def.args, env, def.cwd ?? null, envFileText ?? null]))
    .digest('hex');
}

/** The server host could not be reached (its folder refused, it did not start): the window spawns the server itself. */
export class HostUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the server host cannot be reached: ${errorMessage(cause)}`, { cause });
    this.name = 'HostUnavailableError';
  }
}

/**
 * The transport of a hosted server: `saved`'s server reattached when the host still runs it with
 * `fingerprint`, else one that spawns a new server from `spec` when the client starts it (as a
 * direct spawn does). A reattached transport holds what the server wrote until the session is
 * restored on the client (sessionKeeper.ts). Throws {@link HostUnavailableError} when the host
 * cannot be reached.
 */
export async function openHosted(host: StdioHost, spec: SpawnSpec, fingerprint: string, label: string, saved: SavedSession | undefined, log: RedactingLog): Promise<HostedTransport> {
  let link: HostLink;
  try {
    link = await host.client.acquire();
  } catch (e) {
    throw new HostUnavailableError(e);
  }
  // Released once, when the transport is done with the link (closed, ended, or its start failed).
  let held = true;
  const transport = new HostedTransport(link, () => {
    if (held) host.client.release();
    held = false;
  });
  const graceMs = host.graceMs();
  try {
    if (saved && (await reattach(link, transport, saved, fingerprint, graceMs, log))) return transport;
  } catch (e) {
    transport.release();
    throw e;
  }
  transport.spawnWith((channel) => link.spawn(spec, fingerprint, graceMs, label, channel));
  return transport;
}

/** Attaches `transport` to `saved`'s server when the host still runs it with `fingerprint`; else ends or forgets it (returns false). */
async function reattach(link: HostLink, transport: HostedTransport, saved: SavedSession, fingerprint: string, graceMs: number, log: RedactingLog): Promise<boolean> {
  const answer = await link.attach(saved.sessionId, graceMs, transport.channel);
  if (answer.kind === 'attached' && answer.fingerprint === fingerprint) {
    transport.bind(saved.sessionId, answer.pid, answer.nextRequestId);
    log.info(`reattached to the running server (pid ${answer.pid}) through the server host; its session continues`);
    return true;
  }
  if (answer.kind === 'attached') {
    // Started from another definition than the one approved now: it is not this server any more.
    log.info(`the running server (pid ${answer.pid}) was started from another definition; it is ended and a new one started`);
    await link.stop(saved.sessionId);
    transport.replaced = 'its definition changed since the old one was started';
  } else {
    transport.replaced = `the old one ended: ${describeEnd(answer.reason)}`;
    log.info(`the server of before is not running any more (${describeEnd(answer.reason)}); a new one is started`);
  }
  return false;
}
