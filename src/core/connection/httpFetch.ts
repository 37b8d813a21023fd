/**
 * The `fetch` a Streamable HTTP (or legacy SSE) connection sends with: Node's own `http` / `https`
 * client (its agents keep connections open), each message from the server bounded as boundedFetch.ts bounds it.
 *
 * Why not the platform's `fetch` (undici): for the small JSON-RPC exchanges of an MCP connection its
 * request and response machinery (the fetch algorithm's steps, `Request`, header lists and web streams
 * for every body) cost more than everything else the host does per call. Over loopback, one JSON POST
 * and its answer read took ≈ 1.05 ms of host CPU through `fetch` and ≈ 0.48 ms through `http.request`
 * on the same 2-core machine (bench: "rev2026 http host CPU per call" measures the whole call).
 *
 * It serves a server on this machine only (a loopback address or `localhost`), and only while its requests
 * keep their connection open. A remote server keeps the platform's `fetch`, which pools connections and TLS
 * sessions its own way and is what VS Code's proxy support serves; and in VS Code, where that support (at
 * its default) makes every `node:http` request close its connection, the first request tells, and the
 * platform's `fetch` serves the rest: a new connection per call would cost more than it saves.
 *
 * What it hands to the platform's `fetch` too (bounded the same way), so that nothing `fetch` does is
 * lost: a URL that is not `http:` / `https:`; a body that is not text or bytes (an OAuth token request's
 * form); and a redirect the caller asked to follow (the platform's fetch sends the request again and
 * follows it; the SDK itself asks for `redirect: 'manual'` and is handed the redirect as it came).
 * A network failure rejects as the platform's does: a `TypeError('fetch failed')` whose `cause` is
 * Node's error with its code (startErrors.ts reads it); an aborted request rejects with its signal's reason.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { JSON_TYPE, MAX_MESSAGE_BYTES, boundedFetch, readResponse, sseEventLimit, tooLargeBody, totalLimit } from './boundedFetch.js';


const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A fetch over `node:http` / `node:https` whose answers are bounded to `limit` bytes per message;
 * `fallback` serves what it leaves to the platform (see the file's comment).
 */
export function nodeHttpFetch(limit = MAX_MESSAGE_BYTES, fallback: FetchLike = boundedFetch(limit)): FetchLike {
  /** False once a request here could not keep its connection open: the platform's fetch serves the rest. */
  const kept = { connections: true };
  return (input, init) => {
    const url = input instanceof URL ? input : typeof input === 'string' ? URL.canParse(input) ? new URL(input) : undefined : undefined;
    const body = init?.body;
    if (!kept.connections || !url || !servedHere(url) || !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) return fallback(input, init);
    return send(url, init ?? {}, body ?? undefined, limit, () => fallback(input, init), kept);
  };
}

/** An `http:` / `https:` URL of this machine (a loopback address, `localhost`). */
function servedHere(url: URL): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function send(url: URL, init: RequestInit, body: string | Uint8Array | undefined, limit: number, follow: () => Promise<Response>, kept: { connections: boolean }): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers = requestHeaders(init.headers);
    if (body !== undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    const failed = (e: unknown) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: e }));
    let req: http.ClientRequest;
    try {
      // Node's own agents keep connections open between requests, as the platform's fetch does.
      req = (url.protocol === 'https:' ? https : http).request(url, { method: (init.method ?? 'GET').toUpperCase(), headers, ...(signal ? { signal } : {}) }, (res) => {
        // An answer no Response can hold (a header a Response refuses) fails this request, never the process.
        try {
          answer(res, init, limit, follow).then(resolve, failed);
        } catch (e) {
          res.destroy();
          failed(e);
        }
      });
    } catch (e) {
      // Node refuses a header name or value it cannot send (its TypeError names the header).
      reject(e);
      return;
    }
    // Sent all the same; later requests go to the platform's fetch (see the file's comment).
    if (!req.shouldKeepAlive) kept.connections = false;
    req.on('error', failed);
    req.end(body);
  });
}

/** The request's headers as Node sends them: lower-case names, a repeated name's values joined (as a Headers list joins them). */
function requestHeaders(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  };
  if (init instanceof Headers) init.forEach((value, name) => (out[name] = value));
  else if (Array.isArray(init)) for (const [name, value] of init) add(name!, value!);
  else for (const name of Object.keys(init)) add(name, (init as Record<string, string>)[name]!);
  return out;
}

/** The Response of an answer: a JSON answer read whole (bounded), an event stream or any other body streamed (bounded). */
function answer(res: http.IncomingMessage, init: RequestInit, limit: number, follow: () => Promise<Response>): Promise<Response> {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    return Promise.reject(new Error(`the server answered with the HTTP status ${status}, outside the statuses a Response holds (200–599)`));
  }
  const head: ResponseInit = { status, statusText: statusText(res.statusMessage), headers: responseHeaders(res.rawHeaders) };
  if (REDIRECTS.has(status) && res.headers.location !== undefined && init.redirect !== 'manual') {
    res.resume();
    return init.redirect === 'error' ? Promise.reject(new Error(`the server redirected (HTTP ${status}) where no redirect was allowed`)) : follow();
  }
  if (status === 204 || status === 205 || status === 304 || init.method?.toUpperCase() === 'HEAD' || (res.headers['content-length'] === '0' && !res.headers['content-encoding'])) {
    res.resume();
    return Promise.resolve(new Response(null, head));
  }
  const type = res.headers['content-type'] ?? '';
  const bytes = decoded(res);
  if (JSON_TYPE.test(type)) return readWhole(res, bytes, limit, head);
  const stream = Readable.toWeb(bytes) as ReadableStream<Uint8Array>;
  return Promise.resolve(new Response(stream.pipeThrough(type.includes('text/event-stream') ? sseEventLimit(limit) : totalLimit(limit)), head));
}

/**
 * A JSON answer read whole before the SDK sees it, counted as it arrives: a declared `Content-Length`
 * over the limit is refused unread; past the limit the body fails with MessageTooLargeError, as
 * boundedFetch.ts's does.
 */
function readWhole(res: http.IncomingMessage, bytes: Readable, limit: number, head: ResponseInit): Promise<Response> {
  if (Number(res.headers['content-length']) > limit) {
    res.destroy();
    return Promise.resolve(new Response(tooLargeBody(limit), head));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    bytes.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limit) {
        done = true;
        res.destroy();
        resolve(new Response(tooLargeBody(limit), head));
        return;
      }
      chunks.push(chunk);
    });
    bytes.on('end', () => {
      done = true;
      resolve(readResponse(new Response(null, head), chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    });
    // A connection closed before the answer ended is an error here too (Node's ECONNRESET 'aborted').
    bytes.on('error', (e) => {
      if (!done) reject(e);
    });
  });
}

/** The body as sent, uncompressed: this fetch asks for no encoding, but a server may compress anyway (as the platform's fetch, it is undone). */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const inflate = encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (!inflate) return res;
  res.on('error', (e) => inflate.destroy(e));
  return res.pipe(inflate);
}

/** Node's raw header list as the pairs a Response takes (its order and repeats kept). */
function responseHeaders(raw: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
  return pairs;
}

/** A reason phrase a Response accepts (a server may send any bytes there). */
function statusText(text: string | undefined): string {
  return text && /^[\t\x20-\x7e\x80-\xff]*$/.test(text) ? text : '';
}
