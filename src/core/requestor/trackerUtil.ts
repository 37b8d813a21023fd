/**
 * Small pure helpers of the requestor tracker: error classification, and the
 * readings of a server's answers the tracker relies on.
 */
import { type Result } from '@modelcontextprotocol/client';
import { ProtocolError, SdkError, SdkErrorCode } from '../base/errors.js';
import { describeState, errorCause, type ConnectionState } from '../connection/connectionState.js';
import { errorMessage } from '../base/errors.js';
import { isSecretName, REDACTED, Redactor } from '../base/redact.js';
import type { TaskOutcome } from '../base/taskOutcome.js';
import type { TerminalStatus } from '../base/taskState.js';

/** Longest stored summary of a call's arguments. */
const SUMMARY_MAX = 120;

/**
 * A one-line summary of a call's arguments: what the row, the task document and the stored
 * sent tasks show of them (the arguments themselves are kept nowhere). Scrubbed by the log's
 * own rules first — the server's known secret values (`redactor`: the connection's log
 * redactor), fields named like secrets, credential-shaped values (base/redact.ts) — then cut,
 * in that order, so a cut never leaves half a secret behind.
 */
export function summarize(args: Record<string, unknown>, redactor: Redactor = new Redactor()): string {
  let s: string;
  try {
    s = JSON.stringify(redactor.redactValue(args, 0, SUMMARY_MAX)) ?? '(arguments)';
  } catch {
    s = '(arguments)';
  }
  return s.length > SUMMARY_MAX ? `${s.slice(0, SUMMARY_MAX - 3)}…` : s;
}

/** A secret-named field whose string value was cut off at the end of a stored summary: `…,"password":"hunt…`. */
const CUT_SECRET_TAIL = /"((?:[^"\\]|\\.){1,100})"\s*:\s*"(?:[^"\\]|\\.)*$/;

/**
 * A summary stored by an earlier release, which kept arguments in clear: scrubbed by the rules
 * of {@link summarize}. A whole one is summarized again; one cut off when stored is scrubbed as
 * text, and a secret-named value cut short at its end is hidden too.
 */
export function redactStoredSummary(summary: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(summary);
  } catch {
    const text = new Redactor().redactText(summary);
    const tail = CUT_SECRET_TAIL.exec(text);
    if (!tail || !isSecretName(tail[1]!.replace(/\\(.)/g, '$1'))) return text;
    return `${text.slice(0, tail.index)}"${tail[1]}":"${REDACTED}"…`;
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? summarize(parsed as Record<string, unknown>) : new Redactor().redactText(summary);
}

/**
 * A malformed answer: a schema validation failure here (zod v4, whose error is named `$ZodError`)
 * or the SDK's refusal of an answer that does not match the method's result.
 */
export function isZodError(e: unknown): boolean {
  if (e instanceof SdkError) return e.code === SdkErrorCode.InvalidResult;
  return e instanceof Error && (e.name === 'ZodError' || e.name === '$ZodError') && Array.isArray((e as { issues?: unknown }).issues);
}

/** The first thing wrong with a malformed answer ({@link isZodError}). */
export function firstZodIssue(e: unknown): string {
  // The SDK's message: "Invalid result for <method>: <issue>, <issue>, …".
  if (e instanceof SdkError) return e.message.replace(/^Invalid result for [^:]+: /, '').split(', ')[0] ?? e.message;
  const issues = (e as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
  const i = issues?.[0];
  return i ? `${i.path.join('.') || '(root)'}: ${i.message}` : errorMessage(e);
}

/** A failure to reach the server (not an answer from it). */
export function isNetworkError(e: unknown): boolean {
  if (e instanceof ProtocolError) return false;
  const code = (e as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (e as { code?: unknown })?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|UND_ERR_\w+)$/.test(code)) return true;
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Not connected|terminated|other side closed/i.test(errorMessage(e));
}

/**
 * The terminal status named in a `-32602` answer to `tasks/cancel` (R-CANCEL-1: "Cannot cancel
 * task: already in terminal status '…'"; the SDK says "Cannot cancel task in terminal status: …"),
 * or undefined when the answer names none (e.g. an unknown task, R-GET-2).
 */
export function terminalStatusIn(message: string): TerminalStatus | undefined {
  const m = /terminal status:?\s*['"]?(completed|failed|cancelled)\b/i.exec(message);
  return m ? (m[1]!.toLowerCase() as TerminalStatus) : undefined;
}

/**
 * The terminal status a `tasks/result` answer implies when no `tasks/get` reported one: a
 * JSON-RPC error or an `isError` result ends the task `failed` (R-LIFE-3, R-ERR-2), anything else
 * `completed`. Used only when the final status cannot be polled.
 */
export function statusImpliedBy(outcome: TaskOutcome): 'completed' | 'failed' {
  if (outcome.kind === 'error') return 'failed';
  return (outcome.result as Result & { isError?: boolean }).isError ? 'failed' : 'completed';
}

/** Delay before the n-th retry (n ≥ 1): `base · 2^(n-1)`, at most `max`. */
export function backoffMs(n: number, base: number, max = 30_000): number {
  return Math.min(base * 2 ** Math.max(0, n - 1), max);
}

/**
 * Why a server's calls were interrupted, from the state it left `running` for: the reason its
 * paused tasks show, and the end of a plain call in flight then. The connection's own message
 * says what happened; a retry it announces ("; restarting in 1 s") is left out, since it is
 * stale once the retry has run and a finished call keeps this reason.
 */
export function interruptionReason(serverName: string, state: ConnectionState): string {
  switch (state.kind) {
    case 'stopped':
      return `"${serverName}" was stopped`;
    case 'error':
      return errorCause(state);
    case 'blocked':
      return `"${serverName}" is not started: ${state.reason}`;
    case 'needs-sign-in':
      return `"${serverName}" needs a sign-in`;
    case 'credentials-rejected':
      return `"${serverName}": ${state.message}`;
    case 'starting':
    case 'running':
      return `"${serverName}" is ${describeState(state)}`;
  }
}
