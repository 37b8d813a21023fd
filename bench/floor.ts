/**
 * The floor of section 8's round-trip rows: what the machine does with no SDK at all. The same
 * messages a `tools/call` exchanges (one request and its answer; two for an `input_required` round
 * trip), as raw newline-delimited JSON-RPC over a child process's pipes, or as one JSON POST per
 * message to a loopback `node:http` server answered with JSON (sent with `node:http` too) — parsed and written with
 * `JSON.parse`/`JSON.stringify` at both ends, nothing else. How far a row is from its floor says how
 * much of its time is protocol machinery (ours or the SDK's) rather than the pipe, the socket and
 * the process switch.
 *
 * The servers are inline scripts (`node -e`), so there is nothing to build and nothing to share with
 * the measured sides.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import { childEnv } from './common.js';
import { measure, type CallRun } from './rev2026.js';

export type FloorKind = 'stdio' | 'http';

/** The answer both floor servers give: a `tools/call` result like the bench server's `echo`. */
const ANSWER = `{"content":[{"type":"text","text":"echo: bench"}]}`;

const STDIO_ECHO = `
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const m = JSON.parse(line);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: ${ANSWER} }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const HTTP_ECHO = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const m = JSON.parse(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: ${ANSWER} }));
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '/mcp\\n'));
`;

const request = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'bench' } } });

function check(answer: unknown, id: number): void {
  const a = answer as { id?: unknown; result?: { content?: Array<{ text?: unknown }> } };
  if (a.id !== id || a.result?.content?.[0]?.text !== 'echo: bench') throw new Error(`floor: unexpected answer ${JSON.stringify(answer)}`);
}

/** A started loopback HTTP echo (one per section run, like the 2026 bench server). */
export async function startHttpFloor(): Promise<{ url: string; stop(): void }> {
  const child: ChildProcess = spawn(process.execPath, ['-e', HTTP_ECHO], { stdio: ['ignore', 'ignore', 'pipe'], env: childEnv() });
  const url = await new Promise<string>((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`the floor HTTP echo did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => fail(new Error(`the floor HTTP echo exited (${code}): ${err}`)));
  });
  return { url, stop: () => void child.kill() };
}

/**
 * `warm` unmeasured exchanges, then `count` measured ones, one at a time; each exchange is
 * `roundTrips` request/answer pairs in sequence (2 for an `input_required` round trip).
 */
export async function floorCalls(kind: FloorKind, roundTrips: number, count: number, warm: number, url?: string): Promise<CallRun> {
  const link = kind === 'stdio' ? stdioLink() : httpLink(url!);
  try {
    let id = 0;
    const exchange = async () => {
      for (let i = 0; i < roundTrips; i++) {
        id++;
        check(await link.send(id), id);
      }
    };
    return await measure(exchange, count, warm);
  } finally {
    link.close();
  }
}

interface Link {
  send(id: number): Promise<unknown>;
  close(): void;
}

function stdioLink(): Link {
  const child = spawn(process.execPath, ['-e', STDIO_ECHO], { stdio: ['pipe', 'pipe', 'inherit'], env: childEnv() });
  let buf = '';
  let waiting: ((answer: unknown) => void) | undefined;
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting;
      waiting = undefined;
      w?.(JSON.parse(line));
    }
  });
  return {
    send: (id) =>
      new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`the floor stdio echo exited (${child.exitCode})`));
        waiting = resolve;
        child.stdin!.write(`${request(id)}\n`);
      }),
    close: () => {
      child.stdin!.end();
      child.kill();
    },
  };
}

function httpLink(url: string): Link {
  // Node's own client (its global agent keeps the connection open), not the platform's fetch: the
  // floor is what the machine does, and undici's fetch machinery costs more than the exchange itself.
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return {
    send: (id) =>
      new Promise((resolve, reject) => {
        const body = request(id);
        const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            try {
              resolve(JSON.parse(text));
            } catch (e) {
              reject(e);
            }
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      }),
    close: () => undefined,
  };
}
