/**
 * The headless MCP client: the core of "MCP Tasks for VS Code" without VS Code, answering
 * every server request deterministically. Built to `dist/headless-client.js` (`node esbuild.mjs`).
 *
 *   node dist/headless-client.js [options] <serverUrl>
 *
 * Follows the official conformance runner's client contract: the server URL is the last
 * argument, the scenario name is in `MCP_CONFORMANCE_SCENARIO` and what the scenario hands the
 * client in `MCP_CONFORMANCE_CONTEXT` (every scenario is served by the same generic run, see
 * scenarios.ts). The revision is negotiated as the extension does it (`server/discover`, else the
 * 2025 `initialize`) and logged. Logs go to stderr; exit 0 when every call got an answer (a tool
 * result with isError counts as an answer), 1 on a protocol-level failure, 2 on a usage error,
 * 3 on timeout.
 *
 * Options:
 *   --report <file>       write a JSON report (calls, modes, task statuses, server requests answered)
 *   --tool-args <json>    per-tool argument overrides, e.g. '{"long_build":{"steps":2}}'
 *   --only <a,b>          call only these tools;  --skip <a,b>  never call these
 *   --timeout <ms>        give up after this long (default 300000)
 *   --header <Name: v>    extra HTTP header (repeatable)
 *   --client-metadata-url <https url>  a Client ID Metadata Document URL to offer as OAuth client id
 *   --protocol <revision|auto>  speak this revision only: 2026-07-28 pins it (no fallback), a 2025
 *                         revision uses the 2025 `initialize` handshake only; `auto` (the default)
 *                         negotiates as the extension does
 *
 * OAuth: a server that asks for a sign-in gets one without a person (auth.ts: the authorization
 * URL is followed with fetch; credentials from MCP_CONFORMANCE_CONTEXT, as the runner passes them).
 *   --verbose             log every JSON-RPC message (trace level)
 */
import { writeFileSync } from 'node:fs';
import type { VersionNegotiationMode } from '@modelcontextprotocol/client';
import { version } from '../../package.json';
import { redactingLog } from '../core/base/redact.js';
import { StderrLog } from './log.js';
import { runHeadless, type HeadlessOptions } from './run.js';
import { headlessAuth } from './auth.js';
import { parseContext, toolArgsOf, type ConformanceContext } from './context.js';
import { notApplicableReason, SCENARIOS } from './scenarios.js';

export const CLIENT_NAME = 'mcp-tasks-headless';

interface Cli {
  url: string;
  report?: string;
  toolArgs?: Record<string, Record<string, unknown>>;
  only?: string[];
  skip?: string[];
  timeoutMs?: number;
  headers: Record<string, string>;
  verbose: boolean;
  clientMetadataUrl?: string;
  versionNegotiation?: VersionNegotiationMode;
}

/** Revisions `--protocol` takes: the 2025 ones go through `initialize`, the 2026 one is pinned. */
const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const MODERN_REVISIONS = ['2026-07-28'];

function negotiationFor(protocol: string): VersionNegotiationMode {
  if (protocol === 'auto') return 'auto';
  if (LEGACY_REVISIONS.includes(protocol)) return 'legacy';
  if (MODERN_REVISIONS.includes(protocol)) return { pin: protocol };
  throw new UsageError(`--protocol must be auto or one of ${[...LEGACY_REVISIONS, ...MODERN_REVISIONS].join(', ')}, got ${JSON.stringify(protocol)}`);
}

class UsageError extends Error {}

function parseCli(argv: string[]): Cli {
  const cli: Partial<Cli> & { headers: Record<string, string>; verbose: boolean } = { headers: {}, verbose: false };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--report':
        cli.report = value();
        break;
      case '--tool-args': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value());
        } catch (e) {
          throw new UsageError(`--tool-args is not valid JSON: ${(e as Error).message}`);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--tool-args must be a JSON object of tool name → arguments');
        cli.toolArgs = parsed as Record<string, Record<string, unknown>>;
        break;
      }
      case '--only':
        cli.only = value().split(',').map((s) => s.trim()).filter(Boolean);
        break;
      case '--skip':
        cli.skip = value().split(',').map((s) => s.trim()).filter(Boolean);
        break;
      case '--timeout': {
        const n = Number(value());
        if (!Number.isFinite(n) || n <= 0) throw new UsageError('--timeout must be a positive number of milliseconds');
        cli.timeoutMs = n;
        break;
      }
      case '--header': {
        const h = value();
        const colon = h.indexOf(':');
        if (colon <= 0) throw new UsageError(`--header must look like "Name: value", got ${JSON.stringify(h)}`);
        cli.headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
        break;
      }
      case '--verbose':
        cli.verbose = true;
        break;
      case '--client-metadata-url':
        cli.clientMetadataUrl = value();
        break;
      case '--protocol':
        cli.versionNegotiation = negotiationFor(value());
        break;
      case '--help':
      case '-h':
        throw new UsageError('');
      default:
        if (arg.startsWith('--')) throw new UsageError(`unknown option ${flag}`);
        positional.push(arg);
    }
  }
  // The conformance runner appends the URL: it is the last positional argument.
  const url = positional.at(-1);
  if (!url) throw new UsageError('missing the server URL (last argument)');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(`not an http(s) URL: ${url}`);
  }
  return { ...cli, url };
}

const USAGE = `usage: headless-client [--report file] [--tool-args json] [--only a,b] [--skip a,b] [--timeout ms] [--header "Name: value"] [--client-metadata-url url] [--protocol revision|auto] [--verbose] <serverUrl>`;

async function main(): Promise<number> {
  let cli: Cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      if (e.message) process.stderr.write(`headless-client: ${e.message}\n`);
      process.stderr.write(`${USAGE}\n`);
      return e.message ? 2 : 0;
    }
    throw e;
  }
  // One redacting log for everything (the connection adds the server's secrets to it).
  const log = redactingLog(new StderrLog(cli.verbose ? 'trace' : 'info'));
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO || undefined;
  if (scenario) {
    const known = SCENARIOS[scenario];
    const skipped = notApplicableReason(scenario);
    if (known) log.info(`conformance scenario ${scenario}: ${known}`);
    else if (skipped) log.warn(`conformance scenario ${scenario} does not apply to this host (${skipped}); running the generic flow anyway`);
    else log.info(`scenario ${scenario} is not one this client knows; running the generic flow`);
  }

  let context: ConformanceContext;
  try {
    context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);
  } catch (e) {
    log.error((e as Error).message);
    return 2;
  }
  const authFor = headlessAuth({ clientName: CLIENT_NAME, context, scenario, clientMetadataUrl: cli.clientMetadataUrl });
  const options: HeadlessOptions = {
    authFor,
    url: cli.url,
    log,
    clientInfo: { name: CLIENT_NAME, version },
    scenario,
    // The arguments the scenario names, then those given on the command line.
    toolArgs: { ...toolArgsOf(context), ...cli.toolArgs },
    versionNegotiation: cli.versionNegotiation,
    only: cli.only,
    skip: cli.skip,
    timeoutMs: cli.timeoutMs,
    headers: cli.headers,
  };
  const report = await runHeadless(options);
  if (cli.report) {
    try {
      writeFileSync(cli.report, `${JSON.stringify(report, null, 2)}\n`);
      log.info(`report written to ${cli.report}`);
    } catch (e) {
      log.error(`could not write the report to ${cli.report}: ${(e as Error).message}`);
      return report.exitCode || 1;
    }
  }
  return report.exitCode;
}

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[headless] ${sig}; exiting\n`);
    process.exit(130);
  });
}

main().then(
  // Exit explicitly: SSE reconnect timers or keep-alive sockets must not keep us alive.
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`[headless] fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
