/**
 * The redirect end of a sign-in: a one-shot HTTP listener on 127.0.0.1 (a random port, path
 * `/callback`) that takes exactly one redirect — the one carrying the sign-in's `state` —, answers
 * the browser with a short page and closes. A request with a wrong or missing `state` (a stale tab,
 * another page on this machine guessing the port) is answered 400 and ignored: it cannot end the
 * sign-in, which keeps waiting for the right redirect until its timeout or cancel. RFC 8252 §7.3: authorization servers accept any port for a loopback
 * redirect URI, so the registered `http://127.0.0.1/callback` stays valid across sign-ins.
 *
 * What the redirect carries is handed on whole: the code (or the error) together with the `iss`
 * that names the authorization server that sent it (RFC 9207). Which server that must be is the
 * SDK's check (its `auth()` compares `iss` with the discovered issuer); an error answer's words
 * are only shown once its `iss` is known to be the right one (see serverAuth.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignInError } from './signInError.js';

export interface LoopbackRedirectOptions {
  /** Give up after this long without a redirect (the user closed the page). */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body></html>`;

/** What the one redirect brought back: an authorization code, or the authorization server's error answer. */
export type AuthorizationResponse =
  | { readonly kind: 'code'; readonly code: string; readonly iss?: string }
  | { readonly kind: 'error'; readonly error: string; readonly description?: string; readonly iss?: string };

type Outcome = { response: AuthorizationResponse } | { error: Error };

export class LoopbackRedirect {
  private _settle?: { resolve: (response: AuthorizationResponse) => void; reject: (e: Error) => void };
  private _result?: Outcome;
  private _expectedState?: string;
  private _timer?: NodeJS.Timeout;
  private _onAbort?: () => void;
  /** Requests to /callback ignored for a wrong or missing `state` (said when the wait ends without the right one). */
  private _wrongState = 0;

  private constructor(
    private readonly _server: Server,
    readonly redirectUrl: string,
    private readonly _options: LoopbackRedirectOptions,
  ) {}

  /** Starts listening; {@link redirectUrl} is known when this resolves. */
  static async start(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const r = new LoopbackRedirect(server, `http://127.0.0.1:${port}/callback`, options);
    server.on('request', (req, res) => r._onRequest(req.url ?? '/', (status, title, text) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
      res.end(PAGE(title, text));
    }));
    return r;
  }

  /** Sets the `state` the redirect must carry (known once the SDK built the authorization URL). */
  expectState(state: string | undefined): void {
    this._expectedState = state;
  }

  /**
   * What the one redirect carried; rejects with a {@link SignInError} when none came in time (a
   * `state-mismatch` if only redirects with a wrong `state` came), the sign-in was cancelled, or
   * the redirect carried neither code nor error.
   */
  waitForRedirect(): Promise<AuthorizationResponse> {
    if (this._result) return 'response' in this._result ? Promise.resolve(this._result.response) : Promise.reject(this._result.error);
    return new Promise<AuthorizationResponse>((resolve, reject) => {
      this._settle = { resolve, reject };
      const { signal, timeoutMs } = this._options;
      this._timer = setTimeout(() => this._finish({ error: this._timedOut(timeoutMs) }), timeoutMs);
      this._timer.unref?.();
      if (signal) {
        if (signal.aborted) return this._finish({ error: new SignInError('cancelled', 'the sign-in was cancelled') });
        this._onAbort = () => this._finish({ error: new SignInError('cancelled', 'the sign-in was cancelled') });
        signal.addEventListener('abort', this._onAbort, { once: true });
      }
    });
  }

  close(): void {
    if (this._timer) clearTimeout(this._timer);
    if (this._onAbort) this._options.signal?.removeEventListener('abort', this._onAbort);
    this._server.close();
    this._server.closeAllConnections?.();
  }

  private _onRequest(rawUrl: string, answer: (status: number, title: string, text: string) => void): void {
    const url = new URL(rawUrl, this.redirectUrl);
    if (url.pathname !== '/callback') return answer(404, 'Not found', 'This is the sign-in redirect of MCP Tasks.');
    if (this._result) return answer(410, 'Sign-in already handled', 'You can close this page.');
    const state = url.searchParams.get('state') ?? undefined;
    if (this._expectedState === undefined || state !== this._expectedState) {
      // Ignored, not fatal: anyone on this machine can reach the port, and a request that cannot
      // sign in must not be able to end the user's sign-in either.
      this._wrongState++;
      return answer(400, 'Sign-in refused', 'This page did not carry the expected state parameter and was ignored. Nothing was signed in. You can close this page.');
    }
    const iss = url.searchParams.get('iss') ?? undefined;
    const error = url.searchParams.get('error');
    if (error) {
      const description = url.searchParams.get('error_description') ?? undefined;
      answer(200, 'Sign-in not completed', 'The authorization server did not grant access. You can close this page.');
      return this._finish({ response: { kind: 'error', error, ...(description !== undefined ? { description } : {}), ...(iss !== undefined ? { iss } : {}) } });
    }
    const code = url.searchParams.get('code');
    if (!code) {
      answer(400, 'Sign-in refused', 'The redirect carried no authorization code. You can close this page.');
      return this._finish({ error: new SignInError('failed', 'the redirect carried no authorization code') });
    }
    answer(200, 'Signed in', 'You are signed in. You can close this page and return to VS Code.');
    this._finish({ response: { kind: 'code', code, ...(iss !== undefined ? { iss } : {}) } });
  }

  private _timedOut(timeoutMs: number): SignInError {
    const within = `within ${Math.round(timeoutMs / 1000)} s`;
    if (this._wrongState > 0) {
      return new SignInError('state-mismatch', `the browser came back only with a wrong state parameter ${within} (${this._wrongState} redirect${this._wrongState === 1 ? '' : 's'} ignored)`);
    }
    return new SignInError('timeout', `no answer from the browser ${within} (was the page closed?)`);
  }

  private _finish(result: Outcome): void {
    if (this._result) return;
    this._result = result;
    if (this._timer) clearTimeout(this._timer);
    const s = this._settle;
    this._settle = undefined;
    if (!s) return;
    if ('response' in result) s.resolve(result.response);
    else s.reject(result.error);
  }
}
