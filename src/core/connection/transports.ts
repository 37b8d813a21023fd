/** The transports a connection can use: Streamable HTTP, legacy HTTP+SSE or a spawned stdio process. */
import { SSEClientTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FetchLike, Transport } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import type { DisposableStore } from '../base/lifecycle.js';
import { describeCommandLine, describeEnv, describeHeaders, isSecretName, type RedactingLog } from '../base/redact.js';
import { FileRefusedError, readBoundedText } from '../config/boundedRead.js';
import { parseEnvFile, type TransportDefinition } from '../config/config.js';
import { nodeHttpFetch } from './httpFetch.js';
import { refuseHtml } from './htmlAnswer.js';
import { StdioTransport, type ProcessRecorder } from './stdioTransport.js';
import { HostUnavailableError, hostedFingerprint, openHosted, type StdioHost } from './hostedStdio.js';
import type { HostedTransport } from './hostedTransport.js';
import type { ServerAuth } from './auth/serverAuth.js';
import type { SavedSession } from './httpSession.js';

/**
 * Makes the transport of a resolved definition: Streamable HTTP (with the size-bounded fetch) or
 * a spawned stdio process whose stderr lines and non-JSON stdout lines go to `onOutput`. Secret-named environment
 * values join the log's redactor; what is started is logged without them.
 *
 * Each of them hands on only messages that passed the SDK's message schema (the SDK's HTTP and SSE
 * transports parse each with it; stdio and the server host read lines with messageLine.ts), which the
 * connection's client relies on (hostClient.ts `messagesChecked`).
 */
export async function createTransport(
  def: TransportDefinition,
  log: RedactingLog,
  session: DisposableStore,
  /** What a stdio server writes besides JSON-RPC: its stderr lines, and stdout lines that are not JSON. */
  onOutput: { readonly stderrLine: (line: string) => void; readonly stdoutNoise: (line: string) => void },
  /** OAuth for an HTTP server (auth/): the SDK transport calls its provider on 401 and 403 insufficient_scope. */
  auth?: Pick<ServerAuth, 'provider' | 'wrapFetch'>,
  /** A Streamable HTTP session to offer again, or the session of a hosted stdio server to reattach to (httpSession.ts). */
  resume?: SavedSession,
  /** Where a spawned process is written down (processJournal.ts). */
  processes?: ProcessRecorder,
  /** What the connection's sides wrap a Streamable HTTP fetch in (clientSide.ts: the task wire's routing headers). */
  wrapFetch: (fetch: FetchLike) => FetchLike = (fetch) => fetch,
  /** The server host, for a stdio server it runs (hostedStdio.ts); `label` names the server in its log. */
  host?: { readonly stdio: StdioHost; readonly label: string },
): Promise<Transport> {
  if (def.type === 'http') {
    let url: URL;
    try {
      url = new URL(def.url);
    } catch {
      throw new Error(`"url" is not a valid URL: ${def.url}`);
    }
    const bounded = refuseHtml(nodeHttpFetch(), def.legacySse === true, url);
    // Streamable HTTP: the sides' wrappers (2026-07-28 tasks/get|update|cancel carry the Mcp-Name routing header: requestor/wire/taskRoutingHeaders.ts).
    const base = def.legacySse ? bounded : wrapFetch(bounded);
    const fetch = auth ? auth.wrapFetch(base) : base;
    // `"type": "sse"`: the SDK's client for the legacy HTTP+SSE transport (GET an event stream, POST to the endpoint it names).
    const t = def.legacySse
      ? new SSEClientTransport(url, { requestInit: { headers: { ...def.headers } }, fetch, authProvider: auth?.provider })
      : new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...def.headers } }, fetch, authProvider: auth?.provider, ...(resume ? { sessionId: resume.sessionId, protocolVersion: resume.protocolVersion } : {}) });
    const headers = describeHeaders(def.headers);
    log.info(`connecting${def.legacySse ? ' (legacy HTTP+SSE)' : ''}: ${def.url}${headers ? ` (headers: ${headers})` : ''}${resume && !def.legacySse ? ' (resuming its session)' : ''}`);
    return t;
  }
  const { env, envFileText } = await processEnv(def, log);
  const envText = describeEnv(def.env);
  const described = `${describeCommandLine(def.command, def.args)}${def.cwd ? ` (cwd ${def.cwd})` : ''}${envText ? ` (env: ${envText})` : ''}`;
  if (host) {
    // Started (or reattached to) in the server host, so it outlives this window.
    try {
      const t: HostedTransport = await openHosted(host.stdio, { command: def.command, args: [...def.args], env, ...(def.cwd ? { cwd: def.cwd } : {}) }, hostedFingerprint(def, envFileText), host.label, resume, log);
      hookOutput(t, onOutput, session);
      log.info(`${t.sessionId ? 'reattached' : 'starting in the server host'}: ${described}`);
      return t;
    } catch (e) {
      if (!(e instanceof HostUnavailableError)) throw e;
      // Without the host the server still runs, started by this window as before; a reload then ends it.
      log.warn(`${e.message}; the server is started by this window, and a reload will end it`);
    }
  }
  const t = new StdioTransport({ command: def.command, args: def.args, env, cwd: def.cwd }, processes);
  hookOutput(t, onOutput, session);
  log.info(`starting: ${described}`);
  return t;
}

/** A process's stderr lines and non-JSON stdout lines to `onOutput`, for as long as the attempt's session lasts. */
function hookOutput(t: StdioTransport | HostedTransport, onOutput: { readonly stderrLine: (line: string) => void; readonly stdoutNoise: (line: string) => void }, session: DisposableStore): void {
  t.onStderrLine = onOutput.stderrLine;
  t.onNoise = onOutput.stdoutNoise;
  session.add({
    dispose: () => {
      t.onStderrLine = undefined;
      t.onNoise = undefined;
    },
  });
}

/**
 * The environment a stdio server starts with: this process's, the envFile's (the contents the start
 * was approved with, when the gate read them; else read now, bounded), then the definition's own.
 * Secret-named values join the log's redactor.
 */
async function processEnv(def: Extract<TransportDefinition, { type: 'stdio' }>, log: RedactingLog): Promise<{ readonly env: Record<string, string>; readonly envFileText?: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  let text: string | undefined;
  if (def.envFile) {
    // The contents the start was approved with, when the gate read them; else read now, bounded
    // (a device, a pipe or a file over 1 MB is refused: boundedRead.ts).
    text = def.envFileText;
    try {
      text ??= await readBoundedText(def.envFile);
    } catch (e) {
      throw new Error(e instanceof FileRefusedError ? `the envFile ${e.message}` : `cannot read envFile ${def.envFile}: ${errorMessage(e)}`);
    }
    Object.assign(env, parseEnvFile(text));
  }
  for (const [k, v] of Object.entries(def.env)) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  // Whatever the server inherits under a secret-looking name stays out of the log if it echoes it.
  log.redactor.add(Object.entries(env).flatMap(([k, v]) => (isSecretName(k) ? [v] : [])));
  return { env, ...(text !== undefined ? { envFileText: text } : {}) };
}

