/**
 * What a server said besides MCP, kept to explain its end: the last lines of its stderr (each
 * logged as it comes) and how its process ended. A crash message quotes only what explains it.
 */
import type { Transport } from '@modelcontextprotocol/client';
import type { ServerLog } from '../base/log.js';
import { StdioTransport, type ProcessExit } from './stdioTransport.js';
import { HostedTransport } from './hostedTransport.js';

const STDERR_TAIL_LINES = 20;
/**
 * Longest stderr line logged and kept: a server decides how long its lines are (the SDK v2 server
 * quotes a 100 kB tool name in its warning), and each becomes one line of the output channel.
 */
export const MAX_STDERR_LINE_CHARS = 2_000;
/** How long before a server's end its stderr lines are taken to say why it ended. */
const EXPLAINING_STDERR_MS = 5_000;
/** A warning of the runtime (Node's `(node:123) SomeWarning: …`): never why a server ended. */
const RUNTIME_WARNING = /^\(node:\d+\) \w*Warning\b/;

export class ServerOutput {
  private _tail: { readonly text: string; readonly at: number }[] = [];

  constructor(
    private readonly _log: ServerLog,
    private readonly _now: () => number = Date.now,
  ) {}

  /** A new process or session: what the old one said explains nothing now. */
  reset(): void {
    this._tail = [];
  }

  /** One stderr line: logged, and kept among the last few. */
  stderrLine(whole: string): void {
    if (!whole) return;
    const line = whole.length > MAX_STDERR_LINE_CHARS ? `${whole.slice(0, MAX_STDERR_LINE_CHARS)}… (${(whole.length - MAX_STDERR_LINE_CHARS).toLocaleString('en-US')} more characters)` : whole;
    this._tail.push({ text: line, at: this._now() });
    if (this._tail.length > STDERR_TAIL_LINES) this._tail.shift();
    this._log.info(`[stderr] ${line}`);
  }

  /**
   * What the server wrote on stderr just before it ended (the last few seconds), quoted as
   * ` (stderr: …)`, or ''. A banner from its start or a runtime warning explains nothing, and is left out.
   */
  stderrSummary(): string {
    const since = this._now() - EXPLAINING_STDERR_MS;
    const recent = this._tail.filter((l) => l.at >= since && !RUNTIME_WARNING.test(l.text)).map((l) => l.text);
    const tail = recent.slice(-3).join(' | ');
    return tail ? ` (stderr: ${tail.slice(0, 400)})` : '';
  }
}

/**
 * A running connection that closed by itself, explained: the line to log, the reason its restart
 * names, and for a process how the old one ended (the next one starts from nothing).
 */
export function unexpectedClose(
  server: { readonly name: string; readonly stdio: boolean },
  transport: Transport | undefined,
  output: ServerOutput,
): { readonly logLine: string; readonly reason: string; readonly processEnded?: string } {
  const exit = exitSummary(transport);
  // A process that was killed says so; its stderr is not why (it did not get to say anything).
  const stderr = exit?.startsWith('killed') ? '' : output.stderrSummary();
  const logLine = `connection closed unexpectedly${exit ? ` (${exit})` : ''}${stderr}`;
  if (!server.stdio) return { logLine, reason: `The connection to "${server.name}" closed` };
  return { logLine, reason: `"${server.name}" exited unexpectedly${exit ? ` (${exit})` : ''}${stderr}`, processEnded: exit ? `the old one ended: ${exit}` : 'the old one ended' };
}

/** How a server process ended ("exit code 1", "killed by SIGKILL"), when it was one this host started. */
export function exitSummary(transport: Transport | undefined): string | undefined {
  if (transport instanceof HostedTransport) return transport.exit ? exitWords(transport.exit) : transport.endSummary;
  const exit = transport instanceof StdioTransport ? transport.exit : undefined;
  return exit ? exitWords(exit) : undefined;
}

function exitWords(exit: ProcessExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
}
