/**
 * Resuming a 2025-11-25 task's `tasks/result` stream after a reload (Streamable HTTP,
 * `Last-Event-ID`). A server that keeps an event store numbers the events of its streams; the
 * host records the last number of a task's open result stream on its record, and a window that
 * resumes the same session asks the server to replay the stream from there (the SDK transport's
 * `resumptionToken`: a GET carrying `Last-Event-ID`) instead of sending a new `tasks/result`.
 *
 * The SDK reports a refused resume only to the transport's `onerror` (its request would wait for
 * an answer that never comes), so the task wire's side watches the transport's fetch
 * ({@link ResumeWatch}): a GET carrying the token answered with anything but an event stream is a
 * refusal, and the drive falls back to a new `tasks/result`.
 *
 * The token is the server's own text: kept only when it is short printable ASCII (it is sent back
 * as a header value and nothing else: never a path, a URL or a command).
 */
import type { CallToolResult, FetchLike } from '@modelcontextprotocol/client';
import type { HostClient } from '../../connection/hostClient.js';
import type { TaskWire } from './taskWire.js';

/** The longest event id kept (SDK servers use a UUID, or a stream id and a counter). */
export const MAX_RESUMPTION_TOKEN_CHARS = 256;

const TOKEN = /^[\x20-\x7e]+$/;

/** Whether `token` may be kept and sent back as `Last-Event-ID`: printable ASCII, bounded. */
export function keepableToken(token: unknown): token is string {
  return typeof token === 'string' && token.length > 0 && token.length <= MAX_RESUMPTION_TOKEN_CHARS && TOKEN.test(token);
}

/** How `tasks/result` goes out: a new request, or the resume of a cut stream. */
export interface ResultStreamOptions {
  /** The last event id of the cut stream: the request is not sent again, its stream is resumed. */
  readonly resumptionToken?: string;
  /** Each event id the stream carries (the SDK's `onresumptiontoken`). */
  readonly onresumptiontoken?: (token: string) => void;
}

/** The refusals of resumes seen on one connection's fetch, by token. */
export class ResumeWatch {
  private readonly _waiting = new Map<string, Set<(reason: string) => void>>();

  /** `fetch`, watched: a GET carrying a watched `Last-Event-ID` not answered with an event stream is a refusal. */
  wrapFetch(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      const token = init?.method === 'GET' ? new Headers(init.headers).get('last-event-id') : null;
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (e) {
        if (token !== null) this._refused(token, `the resume could not reach the server (${e instanceof Error ? e.message : String(e)})`);
        throw e;
      }
      if (token !== null) {
        const type = response.headers.get('content-type') ?? '';
        if (!response.ok) this._refused(token, `the server answered the resume ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
        else if (!type.toLowerCase().startsWith('text/event-stream')) this._refused(token, `the server answered the resume with ${type || 'no content type'}`);
      }
      return response;
    };
  }

  /** Resolves with the reason when a resume with `token` is refused; never once `signal` aborts. */
  refusal(token: string, signal: AbortSignal): Promise<string> {
    return new Promise((resolve) => {
      if (signal.aborted) return;
      let set = this._waiting.get(token);
      if (!set) this._waiting.set(token, (set = new Set()));
      const waiter = (reason: string) => {
        signal.removeEventListener('abort', forget);
        resolve(reason);
      };
      const forget = () => {
        set.delete(waiter);
        if (!set.size && this._waiting.get(token) === set) this._waiting.delete(token);
      };
      set.add(waiter);
      signal.addEventListener('abort', forget, { once: true });
    });
  }

  private _refused(token: string, reason: string): void {
    const set = this._waiting.get(token);
    if (!set) return;
    this._waiting.delete(token);
    for (const waiter of set) waiter(reason);
  }
}

/** What a resume came to: the result (or the server's error, thrown), or a refusal to fall back from. */
export type ResumeOutcome = { readonly kind: 'result'; readonly result: CallToolResult } | { readonly kind: 'refused'; readonly reason: string };

/**
 * Resumes the cut `tasks/result` stream of `taskId` from `token` on `client` (the SDK sends no
 * request: it GETs the stream with `Last-Event-ID` and takes the replayed response as this
 * request's). A refusal `watch` sees ends it (the request is abandoned) with the reason.
 */
export async function resumeResult(
  wire: Pick<TaskWire, 'getToolResult'>,
  client: HostClient,
  watch: ResumeWatch,
  taskId: string,
  token: string,
  onresumptiontoken: (token: string) => void,
  signal: AbortSignal,
): Promise<ResumeOutcome> {
  const abandon = new AbortController();
  const both = AbortSignal.any([signal, abandon.signal]);
  const refused = watch.refusal(token, both);
  const resumed = wire.getToolResult(client, taskId, both, { resumptionToken: token, onresumptiontoken });
  try {
    return await Promise.race([resumed.then((result) => ({ kind: 'result', result }) as const), refused.then((reason) => ({ kind: 'refused', reason }) as const)]);
  } finally {
    // Refused (or a failure): nothing more comes for this request.
    if (!signal.aborted) abandon.abort(new Error('the resume of the result stream ended'));
    resumed.catch(() => undefined);
  }
}
