/**
 * A `fetch` for the Streamable HTTP client transport that bounds the size of one message from
 * the server, as the SDK's stdio transport already does (10 MB, `STDIO_DEFAULT_MAX_BUFFER_SIZE`).
 * Without it a server could send one 50 MB SSE event or JSON body: the SDK buffers, parses and
 * logs all of it (seconds of a blocked extension host, hundreds of MB). An SSE stream is limited
 * per event (bytes between blank lines); a JSON body as a whole. Past the limit the body errors,
 * which the SDK reports through `onerror` (the stream is dropped; the connection checks health).
 */
import type { FetchLike } from '@modelcontextprotocol/client';

/** Largest message accepted from a server, in bytes (the SDK's stdio limit). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The error a body fails with when a message is too large. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the server sent a message larger than the ${formatBytes(limit)} limit; it was dropped`);
    this.name = 'MessageTooLargeError';
  }
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${n} bytes`;
}

/** Wraps `inner` so that every response body is cut off past `limit` bytes per message. */
export function boundedFetch(limit = MAX_MESSAGE_BYTES, inner: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const res = await inner(url, init);
    if (!res.body || res.status === 204 || res.status === 205 || res.status === 304) return res;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return withBody(res, res.body.pipeThrough(sseEventLimit(limit)));
    if (JSON_TYPE.test(type)) return readJson(res, res.body, limit);
    return withBody(res, res.body.pipeThrough(totalLimit(limit)));
  };
}

/** A JSON answer: read whole before the SDK sees it. */
export const JSON_TYPE = /^\s*application\/json\b/i;

function withBody(res: Response, body: ReadableStream<Uint8Array> | Uint8Array): Response {
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * A JSON answer is read whole before the SDK sees it (the SDK reads it whole before parsing it
 * anyway), counting the bytes as they arrive: piping it through a counting TransformStream made
 * three more streams and a pipe per answer, most of the bound's cost on each call (bench:
 * rev2026 host CPU per call). A declared `Content-Length` over the limit is refused before
 * anything is read; a declared length is never trusted otherwise — what is read is counted. Over
 * the limit, the answer's body errors with {@link MessageTooLargeError}, as a streamed one does.
 */
async function readJson(res: Response, body: ReadableStream<Uint8Array>, limit: number): Promise<Response> {
  if (Number(res.headers.get('content-length')) > limit) return tooLarge(res, body.cancel(), limit);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) return tooLarge(res, reader.cancel(), limit);
    chunks.push(value);
  }
  return readResponse(res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
}

const decoder = new TextDecoder();

/** What an answer read here holds: its bytes, whether they were read, and a Response of them once one was needed. */
interface ReadBytes {
  readonly bytes: Uint8Array;
  read: boolean;
  whole?: Response;
}

const READ_BYTES = Symbol('readBytes');
type ReadAnswer = Response & { [READ_BYTES]: ReadBytes };

/**
 * The answer as the SDK reads it: the Response that came (its status, headers and URL), its body
 * now the bytes read, answered from them by `text()` and `json()` (what the SDK calls) with no
 * stream at all; anything else (`body`, `arrayBuffer()`, `clone()`, …) goes to a Response of those
 * bytes, made only then. Read once, as any body: a second read is refused as the platform's is.
 * A `new Response(bytes)` made a second stream and headers list for every answer, only for the
 * SDK to read it at once — with the undici work behind it, most of the bound's remaining cost per
 * call (bench: rev2026 http host CPU per call).
 */
export function readResponse(res: Response, bytes: Uint8Array): Response {
  (res as ReadAnswer)[READ_BYTES] = { bytes, read: false };
  return Object.setPrototypeOf(res, readAnswerPrototype) as Response;
}

/**
 * The body methods of every answer read here, over the platform's: one prototype shared by all, so
 * an answer costs its bytes and one small record. Defining nine properties and a dozen closures on
 * each answer instead cost ≈ 10–15 µs an answer, more than reading and parsing it (bench: rev2026
 * http host CPU per call; every poll over HTTP is such an answer). The status, headers and URL are
 * still the platform's own getters on the Response that came.
 */
const readAnswerPrototype: object = Object.create(Response.prototype, {
  text: { value: bodyMethod((b) => decoder.decode(b), (r) => r.text()) },
  json: { value: bodyMethod((b) => JSON.parse(decoder.decode(b)) as unknown, (r) => r.json() as Promise<unknown>) },
  arrayBuffer: { value: viaWhole((r) => r.arrayBuffer()) },
  blob: { value: viaWhole((r) => r.blob()) },
  formData: { value: viaWhole((r) => r.formData()) },
  bytes: { value: viaWhole((r) => (r as Response & { bytes(): Promise<Uint8Array> }).bytes()) },
  body: {
    get(this: ReadAnswer) {
      const s = this[READ_BYTES];
      return s.read && !s.whole ? null : wholeOf(this).body;
    },
  },
  bodyUsed: {
    get(this: ReadAnswer) {
      const s = this[READ_BYTES];
      return s.read || (s.whole?.bodyUsed ?? false);
    },
  },
  clone: {
    value(this: ReadAnswer) {
      const s = this[READ_BYTES];
      if (s.read && !s.whole) throw unusable();
      return wholeOf(this).clone();
    },
  },
});

/** The Response of `answer`'s bytes, made the first time one is needed. */
function wholeOf(answer: ReadAnswer): Response {
  const s = answer[READ_BYTES];
  return (s.whole ??= new Response(s.bytes, { status: answer.status, statusText: answer.statusText, headers: answer.headers }));
}

function unusable(): TypeError {
  return new TypeError('Body is unusable: Body has already been read');
}

/** `fast` from the bytes while nothing else read them; else the Response of the bytes answers. */
function bodyMethod<T>(fast: (bytes: Uint8Array) => T, slow: (r: Response) => Promise<T>): (this: ReadAnswer) => Promise<T> {
  return function (this: ReadAnswer) {
    const s = this[READ_BYTES];
    if (s.whole) return slow(s.whole);
    if (s.read) return Promise.reject(unusable());
    s.read = true;
    try {
      return Promise.resolve(fast(s.bytes));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/** A body method only the Response of the bytes has: refused once the bytes were read here. */
function viaWhole<T>(slow: (r: Response) => Promise<T>): (this: ReadAnswer) => Promise<T> {
  return function (this: ReadAnswer) {
    const s = this[READ_BYTES];
    return s.read && !s.whole ? Promise.reject(unusable()) : slow(wholeOf(this));
  };
}

function tooLarge(res: Response, cancelled: Promise<void>, limit: number): Response {
  cancelled.catch(() => undefined);
  return withBody(res, tooLargeBody(limit));
}

/** A body that fails with {@link MessageTooLargeError} at its first read. */
export function tooLargeBody(limit: number): ReadableStream<Uint8Array> {
  const error = new MessageTooLargeError(limit);
  return new ReadableStream({ start: (c) => c.error(error) });
}

export function totalLimit(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > limit) controller.error(new MessageTooLargeError(limit));
      else controller.enqueue(chunk);
    },
  });
}

const LF = 0x0a;
const CR = 0x0d;

/** Errors once one SSE event (the bytes up to a blank line) is longer than `limit`. */
export function sseEventLimit(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  let lastWasCR = false;
  return new TransformStream({
    transform(chunk, controller) {
      // Line ends are found with indexOf (native), so a large message costs little to check.
      let i = 0;
      let lf = -2;
      let cr = -2;
      while (i < chunk.length) {
        if (lf !== -1 && lf < i) lf = chunk.indexOf(LF, i);
        if (cr !== -1 && cr < i) cr = chunk.indexOf(CR, i);
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        const run = (end === -1 ? chunk.length : end) - i;
        if (run > 0) {
          lastWasCR = false;
          lineBytes += run;
          eventBytes += run;
          if (eventBytes > limit) {
            controller.error(new MessageTooLargeError(limit));
            return;
          }
        }
        if (end === -1) break;
        const b = chunk[end];
        // CRLF is one line end; an empty line ends the event.
        if (!(b === LF && lastWasCR)) {
          if (lineBytes === 0) eventBytes = 0;
          lineBytes = 0;
        }
        lastWasCR = b === CR;
        i = end + 1;
      }
      controller.enqueue(chunk);
    },
  });
}
