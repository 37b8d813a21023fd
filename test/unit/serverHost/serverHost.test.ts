/**
 * The server host's protocol (src/core/serverHost/), in process over its real Unix socket, with
 * real child processes as servers: a connection without the token, or with a frame that is not one,
 * is closed; what a server writes while no window is attached is kept up to the bound, and over it
 * the server is ended (`buffer-full`); a server no window comes back to within its grace is ended
 * (`grace-expired`), and a window that comes back later is told why; a window that comes back in
 * time gets what was written meanwhile, with its requests numbered after the last window's and no
 * answer to a request of the window that is gone.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Emitter } from '../../../src/core/base/event.js';
import { HostFrameSchema, LineReader, decodeFrame, encodeFrame, type EndReason, type HostFrame, type WindowFrame } from '../../../src/core/serverHost/frames.js';
import { HostLink, type ServerChannel } from '../../../src/core/serverHost/hostLink.js';
import { checkPrivateDir, ensureToken, hostPaths, PrivateDirError } from '../../../src/core/serverHost/privateDir.js';
import { ServerHost } from '../../../src/core/serverHost/serverHost.js';
import { ServerHostClient } from '../../../src/core/serverHost/launch.js';
import { waitFor } from '../../helpers/host.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A host in a fresh private folder; `ended` fires with each server that ended. */
async function startHost(options: { maxBufferBytes?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-unit-'));
  dirs.push(dir);
  const token = await ensureToken(dir);
  const ends = new Map<string, EndReason>();
  const ended = new Emitter<void>();
  let idle = 0;
  const idled = new Emitter<void>();
  const host = new ServerHost({
    dir,
    token,
    ...options,
    idleMs: 10,
    idle: () => {
      idle++;
      idled.fire();
    },
    serverEnded: (id, reason) => {
      ends.set(id, reason);
      ended.fire();
    },
  });
  await host.listen();
  return { dir, token, host, ends, ended: ended.event, idled: idled.event, idleCount: () => idle };
}

/** A raw connection to the host: the frames it got, and whether it was closed. */
function raw(dir: string) {
  const socket: Socket = createConnection(hostPaths(dir).socket);
  const frames: HostFrame[] = [];
  const changed = new Emitter<void>();
  let closed = false;
  const reader = new LineReader(
    () => 1 << 26,
    (line) => {
      const f = decodeFrame(HostFrameSchema, line);
      if (f) frames.push(f);
      changed.fire();
    },
    () => undefined,
  );
  socket.on('data', (c: Buffer) => reader.push(c));
  socket.on('error', () => undefined);
  socket.once('close', () => {
    closed = true;
    changed.fire();
  });
  return {
    frames,
    changed: changed.event,
    get closed() {
      return closed;
    },
    write: (frame: WindowFrame | string) => socket.write(typeof frame === 'string' ? `${frame}\n` : encodeFrame(frame)),
    close: () => socket.destroy(),
  };
}

/** A channel that notes what it hears. */
function channel() {
  const lines: string[] = [];
  const changed = new Emitter<void>();
  let end: Parameters<ServerChannel['ended']>[0] | undefined;
  const c: ServerChannel = {
    out: (line) => (lines.push(line), changed.fire()),
    err: () => undefined,
    ended: (reason) => ((end = reason), changed.fire()),
  };
  return { c, lines, changed: changed.event, end: () => end };
}

/** A node program as a server. */
function nodeServer(source: string) {
  return { command: process.execPath, args: ['-e', source], env: { PATH: process.env.PATH ?? '' } };
}

/** Answers each request at once, except `slow`, answered 100 ms later and followed by a `tick` notification. */
const ANSWERING = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (l) => {
  const m = JSON.parse(l);
  const answer = () => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { method: m.method } }) + '\\n');
  if (m.method === 'slow') setTimeout(() => { answer(); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'tick' }) + '\\n'); }, 100);
  else if (m.method === 'flood') setInterval(() => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'noise', params: { pad: 'x'.repeat(1000) } }) + '\\n'), 2);
  else answer();
});
rl.on('close', () => process.exit(0));
`;

test('a connection that does not show the token first is closed, and gets nothing', async () => {
  const { dir, host } = await startHost();
  try {
    const wrong = raw(dir);
    wrong.write({ t: 'hello', token: 'ab'.repeat(32) });
    await waitFor(wrong.changed, () => wrong.closed, 'closed');
    assert.deepEqual(wrong.frames, []);

    const noHello = raw(dir);
    noHello.write({ t: 'spawn', rid: 0, spec: nodeServer('setInterval(() => {}, 1000)'), fingerprint: 'f', graceMs: 1000, label: 'x' });
    await waitFor(noHello.changed, () => noHello.closed, 'closed');
    assert.deepEqual(noHello.frames, []);
    assert.equal(host.serverCount, 0, 'nothing was spawned');

    await assert.rejects(HostLink.open(dir, 'cd'.repeat(32)), /closed the connection/);
  } finally {
    await host.close();
  }
});

test('a frame that is not one (not JSON, or not of the protocol) closes the connection', async () => {
  const { dir, token, host } = await startHost();
  try {
    for (const bad of ['not json', JSON.stringify({ t: 'spawn', rid: 'one' }), JSON.stringify({ t: 'send', serverId: '../x', line: '{}' }), JSON.stringify({ t: 'launch' })]) {
      const c = raw(dir);
      c.write({ t: 'hello', token });
      await waitFor(c.changed, () => c.frames.some((f) => f.t === 'welcome'), 'welcome');
      c.write(bad);
      await waitFor(c.changed, () => c.closed, `closed after ${bad}`);
    }
    assert.equal(host.serverCount, 0);
  } finally {
    await host.close();
  }
});

test('a hello larger than a hello is refused before the token is read', async () => {
  const { dir, token, host } = await startHost();
  try {
    const c = raw(dir);
    c.write(JSON.stringify({ t: 'hello', token, pad: 'x'.repeat(4096) }));
    await waitFor(c.changed, () => c.closed, 'closed');
    assert.deepEqual(c.frames, []);
  } finally {
    await host.close();
  }
});

test('over the buffer bound while no window is attached, the server is ended (buffer-full), and a window that comes back is told so', async () => {
  const { dir, token, host, ends, ended } = await startHost({ maxBufferBytes: 64 * 1024 });
  try {
    const first = await HostLink.open(dir, token);
    const ch = channel();
    const { serverId, pid } = await first.spawn(nodeServer(ANSWERING), 'fp', 60_000, 'flooder', ch.c);
    first.send(serverId, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'flood' }));
    await waitFor(ch.changed, () => ch.lines.length > 0, 'the flood');
    first.close();
    await waitFor(ended, () => ends.has(serverId), 'the server ended');
    assert.deepEqual(ends.get(serverId), { kind: 'buffer-full', limitBytes: 64 * 1024 });
    assert.throws(() => process.kill(pid, 0), 'the process is gone');

    const second = await HostLink.open(dir, token);
    assert.deepEqual(await second.attach(serverId, 60_000, channel().c), { kind: 'gone', reason: { kind: 'buffer-full', limitBytes: 64 * 1024 } });
    second.close();
  } finally {
    await host.close();
  }
});

test('a server no window comes back to within its grace is ended (grace-expired); the host then owns nothing and says it is idle', async () => {
  const { dir, token, host, ends, ended, idled, idleCount } = await startHost();
  try {
    const link = await HostLink.open(dir, token);
    const { serverId, pid } = await link.spawn(nodeServer(ANSWERING), 'fp', 150, 'quiet', channel().c);
    const started = Date.now();
    link.close();
    await waitFor(ended, () => ends.has(serverId), 'the server ended');
    assert.ok(Date.now() - started >= 140, 'not before its grace');
    assert.deepEqual(ends.get(serverId), { kind: 'grace-expired', graceMs: 150 });
    assert.throws(() => process.kill(pid, 0), 'the process is gone');
    const late = await HostLink.open(dir, token);
    assert.deepEqual(await late.attach(serverId, 150, channel().c), { kind: 'gone', reason: { kind: 'grace-expired', graceMs: 150 } });
    late.close();
    // Its end is kept as long as its grace; then nothing is left and the host may exit.
    await waitFor(idled, () => idleCount() > 0, 'idle once it owns nothing and nobody is connected');
    assert.equal(host.serverCount, 0);
  } finally {
    await host.close();
  }
});

test('a window that comes back in time gets what the server wrote meanwhile, numbers its requests after the last window\'s, and no answer to the last window\'s requests', async () => {
  const { dir, token, host } = await startHost();
  try {
    const first = await HostLink.open(dir, token);
    const a = channel();
    const { serverId } = await first.spawn(nodeServer(ANSWERING), 'fp-1', 60_000, 'answering', a.c);
    first.send(serverId, JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'fast' }));
    await waitFor(a.changed, () => a.lines.length === 1, 'the answer to 6');
    // A request in flight when the window goes: its answer must not reach the next window.
    first.send(serverId, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'slow' }));
    first.close();

    const second = await HostLink.open(dir, token);
    const b = channel();
    const answer = await second.attach(serverId, 60_000, b.c);
    assert.equal(answer.kind, 'attached');
    assert.equal(answer.kind === 'attached' && answer.fingerprint, 'fp-1');
    assert.equal(answer.kind === 'attached' && answer.nextRequestId, 8, 'after the last window\'s ids');
    await waitFor(b.changed, () => b.lines.some((l) => l.includes('"tick"')), 'the notification after the slow answer');
    assert.deepEqual(b.lines.map((l) => JSON.parse(l) as { id?: number; method?: string }).map((m) => m.method ?? `answer ${m.id}`), ['tick'], 'the answer to 7 was dropped');
    second.send(serverId, JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'fast' }));
    await waitFor(b.changed, () => b.lines.length === 2, 'the answer to 8');
    assert.deepEqual(JSON.parse(b.lines[1]!), { jsonrpc: '2.0', id: 8, result: { method: 'fast' } });

    // Stop ends it through the host.
    await second.stop(serverId);
    assert.equal(host.serverCount, 0);
    second.close();
  } finally {
    await host.close();
  }
});

test('the private folder is refused when others may enter it or it is a link; the token is 32 random bytes in a 0600 file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-dir-'));
  dirs.push(dir);
  const token = await ensureToken(dir);
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.equal(statSync(hostPaths(dir).token).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(await ensureToken(dir), token, 'the same token for the next window');
  chmodSync(dir, 0o755);
  await assert.rejects(checkPrivateDir(dir), PrivateDirError);
  await assert.rejects(ensureToken(dir), /may be entered by other users/);
  chmodSync(dir, 0o700);
  const link = join(tmpdir(), `mcp-host-link-${process.pid}`);
  symlinkSync(dir, link);
  dirs.push(link);
  await assert.rejects(checkPrivateDir(link), /is not a directory/);
  chmodSync(hostPaths(dir).token, 0o644);
  await assert.rejects(ensureToken(dir), /may be read by other users/);
});

test('a host that ends before it listens is said at once, with how it ended, not after the whole start wait', { timeout: 20_000 }, async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcp-host-unit-')), 'host');
  try {
    // The host's script is missing: Node exits with code 1 at once; the start wait is 10 s.
    const client = new ServerHostClient({ dir, hostScript: join(dir, '..', 'no-such-host.js') });
    // The exit is the reason given: the deadline's error would name the socket's (ENOENT) instead.
    await assert.rejects(client.link(), /the server host did not start: it exited with code 1$/);
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
});
