/**
 * Signing in to remote MCP servers (OAuth), the user's side: the secrets live in VS Code's
 * SecretStorage (the core's SecretStore port), the authorization page opens in the system
 * browser (`vscode.env.openExternal`) and comes back to a one-shot loopback listener on
 * 127.0.0.1 (see SECURITY.md, "Sign-in"). A server that needs a sign-in shows "sign in required"
 * in the tree with an inline Sign In action, and a notification naming the server and the
 * authorization server. Nothing here logs a token, a code or a verifier.
 */
import * as vscode from 'vscode';
import type { ServerDefinition } from '../../core/config/config.js';
import { errorMessage } from '../../core/base/errors.js';
import { plainLabel } from '../../core/base/quote.js';
import type { ServerAuth } from '../../core/connection/auth/serverAuth.js';
import { assertBrowsable, SignInError } from '../../core/connection/auth/signInError.js';
import type { ServerConnection } from '../../core/connection/connectionPort.js';
import type { ServerRegistry } from '../../core/connection/registry.js';
import { Commands } from '../commands/commandIds.js';
import { showError, showInfo, showWarning } from '../adapters/notify.js';
import { serverIcon, shortState } from '../view/serverPresentation.js';
import type { TasksNode } from '../view/tasksTree.js';
import { toVs } from '../adapters/vsDisposable.js';

/** `client_name` in dynamic client registration: what the authorization server shows the user. */
export const OAUTH_CLIENT_NAME = 'MCP Tasks for VS Code';

/**
 * The OAuth code (the SDK's, src/core/connection/auth/) is in the protocol part (scripts/lib/lazyParts.mjs),
 * evaluated when the first server is configured: `extensionAuthFor` is asked when a connection is made,
 * so the part is loaded by then and this `require` finds it (in the sources, it loads the module).
 */
function authFactory(): typeof import('../../core/connection/auth/authFactory.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return require('../../core/connection/auth/authFactory.js') as typeof import('../../core/connection/auth/authFactory.js');
}

/** The OAuth of one server definition (client credentials from its "oauth" block, or a sign-in with its secrets in SecretStorage and the system browser). */
export function extensionAuthFor(def: ServerDefinition, secrets: vscode.SecretStorage): ServerAuth | undefined {
  return authFactory().serverAuthFor(def, {
    store: secrets,
    clientName: OAUTH_CLIENT_NAME,
    openBrowser: async (url) => {
      // The core checked it already (assertBrowsable); openExternal hands any other scheme to a handler, so once more here.
      assertBrowsable(url);
      // `true`: the URL is already encoded; VS Code must not encode it again.
      const opened = await vscode.env.openExternal(vscode.Uri.parse(url.toString(), true));
      if (!opened) throw new SignInError('cancelled', 'the browser was not opened');
    },
  });
}

/** Why a sign-in failed, in words for a notification. */
export function describeSignInFailure(server: string, e: unknown): string {
  if (!(e instanceof SignInError)) return vscode.l10n.t('Sign-in to "{0}" failed: {1}', server, errorMessage(e));
  switch (e.failure) {
    case 'cancelled':
      return vscode.l10n.t('Sign-in to "{0}" was cancelled.', server);
    case 'timeout':
      return vscode.l10n.t('Sign-in to "{0}" did not complete: {1}. Use "Sign In" to try again.', server, e.message);
    case 'state-mismatch':
      return vscode.l10n.t('Sign-in to "{0}" was refused: the browser came back with a wrong state parameter (a stale or forged page). Use "Sign In" to try again.', server);
    case 'denied':
      return vscode.l10n.t('Sign-in to "{0}" was not granted: {1}.', server, e.message);
    case 'unreachable':
      return vscode.l10n.t('Sign-in to "{0}" failed: {1}.', server, e.message);
    case 'failed':
      return vscode.l10n.t('Sign-in to "{0}" failed: {1}', server, e.message);
  }
}

/** The Sign In / Sign Out commands and the "sign-in required" notification. */
export function registerSignIn(registry: ServerRegistry): vscode.Disposable[] {
  // A sign-in in progress per server: Sign In again replaces it (a new page, a new state), as a user who
  // closed or lost the first page expects; the one replaced ends without a message of its own.
  const inFlight = new Map<string, { readonly done: Promise<void>; readonly replace: () => void }>();
  const notified = new Set<string>();

  /**
   * The server to act on: named, the only candidate, or picked. Escape on the pick is its own
   * outcome (nothing is said): it once read as "none", and Sign Out said "no HTTP server is
   * configured." with two configured.
   */
  const connectionOf = async (
    arg: TasksNode | string | undefined,
    filter: (c: ServerConnection) => boolean,
    placeHolder: string,
  ): Promise<{ readonly kind: 'chosen'; readonly connection: ServerConnection } | { readonly kind: 'none' } | { readonly kind: 'escaped' }> => {
    const id = typeof arg === 'string' ? arg : arg?.kind === 'server' ? arg.serverId : undefined;
    const named = id === undefined ? undefined : registry.get(id);
    if (named) return { kind: 'chosen', connection: named };
    if (id !== undefined) return { kind: 'none' };
    const candidates = registry.connections.filter(filter);
    if (candidates.length === 0) return { kind: 'none' };
    if (candidates.length === 1) return { kind: 'chosen', connection: candidates[0]! };
    const pick = await vscode.window.showQuickPick(candidates.map((c) => ({ label: plainLabel(c.name), description: shortState(c.state), iconPath: serverIcon(c.state), connection: c })), { placeHolder });
    return pick ? { kind: 'chosen', connection: pick.connection } : { kind: 'escaped' };
  };

  const signIn = async (c: ServerConnection): Promise<void> => {
    for (let running = inFlight.get(c.id); running; running = inFlight.get(c.id)) {
      running.replace();
      await running.done;
    }
    const state = c.state;
    const at = state.kind === 'needs-sign-in' ? state.authorizationServer : vscode.l10n.t('its authorization server');
    const abort = new AbortController();
    let replaced = false;
    const p = Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to "{0}" at {1}: complete the sign-in in your browser…', c.name, at), cancellable: true },
        async (_progress, token) => {
          const sub = token.onCancellationRequested(() => abort.abort());
          try {
            await c.signIn(abort.signal);
            notified.delete(c.id);
            void showInfo(vscode.l10n.t('Signed in to "{0}".', c.name));
          } catch (e) {
            if (!replaced) void showError(describeSignInFailure(c.name, e));
          } finally {
            sub.dispose();
          }
        },
      ),
    ).finally(() => {
      if (inFlight.get(c.id)?.done === p) inFlight.delete(c.id);
    });
    inFlight.set(c.id, {
      done: p,
      replace: () => {
        replaced = true;
        abort.abort();
      },
    });
    return p;
  };

  return [
    vscode.commands.registerCommand(Commands.signIn, async (arg?: TasksNode | string) => {
      const chosen = await connectionOf(arg, (x) => x.state.kind === 'needs-sign-in', vscode.l10n.t('Sign in to which server?'));
      if (chosen.kind === 'escaped') return;
      if (chosen.kind === 'none') return void showInfo(vscode.l10n.t('MCP Tasks: no server needs a sign-in.'));
      await signIn(chosen.connection);
    }),
    vscode.commands.registerCommand(Commands.signOut, async (arg?: TasksNode | string) => {
      const chosen = await connectionOf(arg, (x) => x.definition.transport.type === 'http', vscode.l10n.t('Sign out of which server?'));
      if (chosen.kind === 'escaped') return;
      if (chosen.kind === 'none') return void showInfo(vscode.l10n.t('MCP Tasks: no HTTP server is configured.'));
      const c = chosen.connection;
      if (c.definition.transport.type !== 'http') return void showInfo(vscode.l10n.t('"{0}" is a local (stdio) server; it has no sign-in.', c.name));
      // The user is signing out: the tree shows "sign in required", no notification about it.
      notified.add(c.id);
      try {
        await c.signOut();
        void showInfo(vscode.l10n.t('Signed out of "{0}": its tokens and client registration were forgotten.', c.name));
      } catch (e) {
        void showError(vscode.l10n.t('Sign-out of "{0}" failed: {1}', c.name, errorMessage(e)));
      }
    }),
    toVs(
      registry.onDidChangeState(({ connection: c, state }) => {
        if (state.kind !== 'needs-sign-in') {
          if (state.kind === 'running') notified.delete(c.id);
          return;
        }
        if (notified.has(c.id) || inFlight.has(c.id)) return;
        notified.add(c.id);
        const action = vscode.l10n.t('Sign In');
        const message = state.scope
          ? vscode.l10n.t('MCP server "{0}" needs you to sign in at {1} (scope: {2}).', c.name, state.authorizationServer, state.scope)
          : vscode.l10n.t('MCP server "{0}" needs you to sign in at {1}.', c.name, state.authorizationServer);
        void showWarning(message, action).then((choice) => {
          if (choice === action) void signIn(c);
        });
      }),
    ),
  ];
}

