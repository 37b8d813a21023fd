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
import { replayFilter } from './replayFilter.js';

/** The longest event id kept (SDK servers use a UUID, or a stream id and a counter). */
export const MAX_RESUMPTION_TOKEN_CHARS = 256;

const TOKEN = /^[\x20-\x7e]+$/;

/** Whether `token` may be kept and sent back as `Last-Event-ID`: printable ASCII, bounded. */
export function keepableToken(token: unknown): token is string {
  return typeof token === 'string' && token.length > 0 && token.length <= MAX_RESUMPTION_TOKEN_CHARS && TOKEN.test(token);
}

/** What a record keeps of a task's open result stream: its last event id and the request it answers. */
export interface KeptStream {
  readonly eventId: string;
  readonly requestId: StreamRequestId;
}

/** How `tasks/result` goes out: a new request, or the resume of a cut stream. */
export interface ResultStreamOptions {
  /** The last event id of the cut stream: the request is not sent again, its stream is resumed. */
  readonly resumptionToken?: string;
  /** Each event id the stream carries (the SDK's `onresumptiontoken`). */
  readonly onresumptiontoken?: (token: string) => void;
}

/** How many abandoned resumes are remembered (their SDK cancellation would GET the stream again). */
const MAX_ABANDONED = 64;
/** How many tasks' latest `tasks/result` request ids are remembered (one per task waiting on its result). */
const MAX_REQUESTS = 4096;

/** The id of a JSON-RPC request the host sent (the SDK numbers them); kept with the event id. */
export type StreamRequestId = number;

/** Whether `id` may be kept as the id of the request a stream answers: a safe non-negative integer. */
export function keepableRequestId(id: unknown): id is StreamRequestId {
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0;
}

/** `body`, when it is one `tasks/result` request: its task and id. */
function resultRequestOf(body: unknown): { taskId: string; id: StreamRequestId } | undefined {
  if (typeof body !== 'string' || !body.includes('"tasks/result"')) return undefined;
  try {
    const m = JSON.parse(body) as { method?: unknown; id?: unknown; params?: { taskId?: unknown } };
    if (m.method === 'tasks/result' && typeof m.params?.taskId === 'string' && keepableRequestId(m.id)) return { taskId: m.params.taskId, id: m.id };
  } catch {
    // not for this watch
  }
  return undefined;
}

/**
 * The refusals of resumes seen on one connection's fetch, by token: a GET carrying a watched
 * `Last-Event-ID` answered with anything but an event stream, one that cannot reach the server,
 * and an event stream that ends without the result (the server accepted the resume but had
 * nothing left to replay, or forgot it).
 */
export class ResumeWatch {
  private readonly _waiting = new Map<string, Set<(reason: string) => void>>();
  /** The open resumed streams, by token: aborted when their resume is abandoned. */
  private readonly _open = new Map<string, AbortController>();
  /** Resumes given up: the SDK's cancellation of their request would GET the stream once more. */
  private readonly _abandoned = new Set<string>();
  /** The id of each task's latest `tasks/result` request (the one its stream's event ids belong to). */
  private readonly _requests = new Map<string, StreamRequestId>();
  /** For each token being resumed: the id of the request its stream answers (replayFilter.ts). */
  private readonly _expected = new Map<string, StreamRequestId>();

  /** The id of the latest `tasks/result` request sent for `taskId` on this connection. */
  requestIdOf(taskId: string): StreamRequestId | undefined {
    return this._requests.get(taskId);
  }

  /** A resume of `token` starts: on its stream only the answer to `requestId` reaches the SDK. */
  expect(token: string, requestId: StreamRequestId): void {
    this._expected.set(token, requestId);
  }

  /** The resume of `token` brought its result. */
  done(token: string): void {
    this._expected.delete(token);
  }

  /** `fetch`, watched: a GET carrying a watched `Last-Event-ID` not answered with an event stream is a refusal. */
  wrapFetch(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      const sent = init?.method === 'POST' ? resultRequestOf(init.body) : undefined;
      if (sent) {
        this._requests.delete(sent.taskId);
        this._requests.set(sent.taskId, sent.id);
        if (this._requests.size > MAX_REQUESTS) this._requests.delete(this._requests.keys().next().value!);
      }
      const token = init?.method === 'GET' ? new Headers(init.headers).get('last-event-id') : null;
      if (token === null) return fetch(url, init);
      // 2025-11-25 has no per-request stream to close: the SDK cancels a request by sending its
      // cancellation "with" the request's token, a second resume. One this host gave up is not sent.
      if (this._abandoned.delete(token)) return new Response(null, { status: 204 });
      const mine = new AbortController();
      this._open.get(token)?.abort();
      this._open.set(token, mine);
      const signal = init?.signal ? AbortSignal.any([init.signal, mine.signal]) : mine.signal;
      let response: Response;
      try {
        response = await fetch(url, { ...init, signal });
      } catch (e) {
        this._closed(token, mine);
        this._refused(token, `the resume could not reach the server (${e instanceof Error ? e.message : String(e)})`);
        throw e;
      }
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok || !response.body || !type.toLowerCase().startsWith('text/event-stream')) {
        this._closed(token, mine);
        if (!response.ok) this._refused(token, `the server answered the resume ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
        else this._refused(token, `the server answered the resume with ${type || 'no content type'}`);
        return response;
      }
      // Accepted: the stream is watched to its end. The SDK reads what it carries after this
      // stream ended (its own pipeline of promises), so the end is told one turn later: a result
      // the stream carried has settled its request by then and wins the race (resumeResult).
      const ended = () => {
        this._closed(token, mine);
        setImmediate(() => this._refused(token, 'the resumed stream ended without the result'));
      };
      const requestId = this._expected.get(token);
      const body = requestId === undefined ? response.body : response.body.pipeThrough(replayFilter(requestId));
      const watched = body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: ended }));
      return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
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

  /**
   * The resume with `token` is given up (refused, overdue, or its task no longer tracked): its
   * stream, if still open, is closed, and the SDK's second GET for its cancellation is not sent.
   */
  abandon(token: string): void {
    this._expected.delete(token);
    this._open.get(token)?.abort();
    this._open.delete(token);
    this._abandoned.add(token);
    if (this._abandoned.size > MAX_ABANDONED) this._abandoned.delete(this._abandoned.values().next().value!);
  }

  private _closed(token: string, controller: AbortController): void {
    if (this._open.get(token) === controller) this._open.delete(token);
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
 * request's). A refusal `watch` sees, or `giveUp` (the drive's bound: the task ended and the
 * stream still carried no result), ends it (the request is abandoned) with the reason.
 */
export async function resumeResult(
  wire: Pick<TaskWire, 'getToolResult'>,
  client: HostClient,
  watch: ResumeWatch,
  resume: { readonly taskId: string; readonly stream: KeptStream; readonly onresumptiontoken: (token: string) => void; readonly giveUp: AbortSignal },
  signal: AbortSignal,
): Promise<ResumeOutcome> {
  const { taskId, onresumptiontoken, giveUp } = resume;
  const token = resume.stream.eventId;
  watch.expect(token, resume.stream.requestId);
  const abandon = new AbortController();
  const both = AbortSignal.any([signal, abandon.signal]);
  const refused = watch.refusal(token, both);
  let stopWaiting = (): void => undefined;
  const overdue = new Promise<string>((resolve) => {
    const over = () => resolve(reasonOf(giveUp));
    if (giveUp.aborted) return over();
    giveUp.addEventListener('abort', over, { once: true });
    stopWaiting = () => giveUp.removeEventListener('abort', over);
  });
  const resumed = wire.getToolResult(client, taskId, both, { resumptionToken: token, onresumptiontoken });
  let result = false;
  try {
    const outcome = await Promise.race([
      resumed.then((r) => ({ kind: 'result', result: r }) as const),
      refused.then((reason) => ({ kind: 'refused', reason }) as const),
      overdue.then((reason) => ({ kind: 'refused', reason }) as const),
    ]);
    result = outcome.kind === 'result';
    return outcome;
  } finally {
    stopWaiting();
    // Refused, overdue, aborted (or a failure): nothing more comes for this request.
    if (!result) watch.abandon(token);
    else watch.done(token);
    if (!signal.aborted) abandon.abort(new Error('the resume of the result stream ended'));
    resumed.catch(() => undefined);
  }
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
}
