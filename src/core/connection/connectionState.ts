/** A connection's observable state and its one-line description. */
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';

/** Connection state, observable through {@link McpConnection.onDidChangeState}. */
export type ConnectionState =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'starting'; readonly attempt: number }
  | {
      readonly kind: 'running';
      readonly serverInfo?: Implementation;
      readonly capabilities: ServerCapabilities;
      readonly protocolVersion?: string;
    }
  | { readonly kind: 'error'; readonly message: string; readonly retryAt?: number }
  /** Not started on purpose (e.g. a workspace stdio server in an untrusted workspace). */
  | { readonly kind: 'blocked'; readonly reason: string }
  /** The server answered 401 with OAuth metadata: the user must sign in (auth/); `scope` is wider after a step-up. */
  | { readonly kind: 'needs-sign-in'; readonly authorizationServer: string; readonly scope?: string; readonly reason?: string }
  /** Client credentials (mcp.json's "oauth" block) the authorization server refused: not retried until the user fixes them. */
  | { readonly kind: 'credentials-rejected'; readonly authorizationServer: string; readonly message: string };

/** One line describing a state, for tooltips and errors. */
export function describeState(s: ConnectionState): string {
  switch (s.kind) {
    case 'stopped':
      return 'stopped';
    case 'starting':
      return s.attempt > 1 ? `starting (attempt ${s.attempt})` : 'starting';
    case 'running':
      return `running${s.serverInfo ? ` (${s.serverInfo.name} ${s.serverInfo.version})` : ''}`;
    case 'error':
      return `error: ${s.message}`;
    case 'blocked':
      return `not started: ${s.reason}`;
    case 'needs-sign-in':
      return `sign-in required at ${s.authorizationServer}${s.scope ? ` (scope ${s.scope})` : ''}${s.reason ? `: ${s.reason}` : ''}`;
    case 'credentials-rejected':
      return `client credentials refused: ${s.message}`;
  }
}

/**
 * What an error state says happened, without the retry it announces: `"x" exited unexpectedly`
 * for `"x" exited unexpectedly; restarting in 1 s` (connection.ts `_scheduleRestart` joins the two
 * with "; "). For texts that outlive the moment (a notification, a finished call's reason): the
 * retry is over by the time they are read.
 */
export function errorCause(state: Extract<ConnectionState, { kind: 'error' }>): string {
  return state.retryAt !== undefined ? state.message.replace(/; (?:restarting|reconnecting) in [^;]*$/, '') : state.message;
}
