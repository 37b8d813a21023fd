/**
 * Files read for a server before or after its approval are bounded (src/core/config/boundedRead.ts),
 * on real files: `/dev/zero`, a named pipe with no writer (mkfifo), a folder and a 2 MB file as a
 * workspace's `envFile` — through the gate, which refuses them without asking, and at the start of
 * a user server (createTransport) — and as `.vscode/mcp.json`. Each is refused quickly with a
 * sentence naming the file and the cause, and without reading it.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MAX_CONFIG_FILE_BYTES, readBoundedText, readConfigFile, FileRefusedError } from '../../../src/core/config/boundedRead.js';
import { parseMcpConfig, type ConfigSource, type ServerDefinition } from '../../../src/core/config/config.js';
import { ConsentStore } from '../../../src/core/config/consent.js';
import { DefinitionGate } from '../../../src/core/config/gate.js';
import { createTransport } from '../../../src/core/connection/transports.js';
import { DisposableStore } from '../../../src/core/base/lifecycle.js';
import { RedactingLog } from '../../../src/core/base/redact.js';
import { MemoryLog } from '../../helpers/host.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-bounded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const FIFO = join(dir, 'pipe.env');
execFileSync('mkfifo', [FIFO]);
const BIG = join(dir, 'big.env');
writeFileSync(BIG, Buffer.alloc(2 * 1024 * 1024, 'A=1\n'));
const FOLDER = join(dir, 'a-folder');
mkdirSync(FOLDER);

/** Each hostile path, and the cause its refusal must name. */
const HOSTILE: ReadonlyArray<readonly [path: string, cause: RegExp]> = [
  ['/dev/zero', /is not read: it is a character device, not a regular file$/],
  [FIFO, /is not read: it is a named pipe \(FIFO\), not a regular file$/],
  [FOLDER, /is not read: it is a folder, not a regular file$/],
  [BIG, /is not read: it is 2 MB, over the 1 MB a configuration file may have$/],
];

/** Runs `fn`, returning its result, the time it took and how much the heap and buffers grew meanwhile. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; grewMb: number }> {
  const before = process.memoryUsage();
  const t = performance.now();
  const value = await fn();
  const ms = performance.now() - t;
  const now = process.memoryUsage();
  return { value, ms, grewMb: (now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20 };
}

describe('bounded reads of envFile and mcp.json', () => {
  test('readBoundedText refuses a device, a pipe, a folder and a 2 MB file, quickly, naming the file and the cause', async () => {
    for (const [path, cause] of HOSTILE) {
      const { value: error, ms, grewMb } = await measured(() => readBoundedText(path).then(() => undefined, (e: unknown) => e));
      assert.ok(error instanceof FileRefusedError, `${path}: ${String(error)}`);
      assert.equal(error.file, path);
      assert.ok(error.message.startsWith(`"${path}" is not read: `), error.message);
      assert.match(error.message, cause);
      assert.ok(ms < 500, `${path} refused in ${ms.toFixed(1)} ms`);
      assert.ok(grewMb < 8, `${path}: heap and buffers grew ${grewMb.toFixed(1)} MB`);
    }
  });

  test('a regular file up to the bound is read whole; one byte over is refused', async () => {
    const exact = join(dir, 'exact.env');
    writeFileSync(exact, Buffer.alloc(MAX_CONFIG_FILE_BYTES, 'x'));
    assert.equal((await readBoundedText(exact)).length, MAX_CONFIG_FILE_BYTES);
    writeFileSync(exact, Buffer.alloc(MAX_CONFIG_FILE_BYTES + 1, 'x'));
    await assert.rejects(readBoundedText(exact), (e: unknown) => e instanceof FileRefusedError && e.refusal.kind === 'too-large');
    writeFileSync(exact, 'A=1\n');
    assert.equal(await readBoundedText(exact), 'A=1\n');
    await assert.rejects(readBoundedText(join(dir, 'none.env')), /ENOENT/);
  });

  test('a workspace envFile that is /dev/zero, a pipe, a folder or 2 MB: the gate blocks the start with the sentence, asks nothing, for three definitions at once', async () => {
    const WS: ConfigSource = { kind: 'workspace', file: join(dir, '.vscode', 'mcp.json'), folder: dir };
    let questions = 0;
    let stored: unknown;
    const consents = new ConsentStore({ get: () => stored, set: async (v) => void (stored = v) });
    // The gate's own reader (readText not given): the bounded one.
    const gate = new DefinitionGate({ workspaceTrusted: () => true, firstStart: () => 'ask', consents, ask: async (r) => (questions++, r.map(() => true)), pathsFor: () => ({ workspaceFolder: dir }) });
    for (const [path, cause] of HOSTILE) {
      const defs: ServerDefinition[] = parseMcpConfig(WS, { servers: { a: { command: 'node', envFile: path }, b: { command: 'node', envFile: path }, c: { command: 'node', envFile: path } } }).servers;
      const { value: verdicts, ms, grewMb } = await measured(() => Promise.all(defs.map((d) => gate.mayConnect(d))));
      for (const [i, v] of verdicts.entries()) {
        assert.equal(typeof v, 'string', `${path}: ${JSON.stringify(v)}`);
        assert.match(String(v), new RegExp(`^the envFile "${path.replace(/[()]/g, '\\$&')}" ${cause.source.replace(/\$$/, '')}; "${defs[i]!.name}" from .* is not started$`));
      }
      assert.ok(ms < 1_000, `three definitions with ${path} decided in ${ms.toFixed(1)} ms`);
      assert.ok(grewMb < 8, `${path}: heap and buffers grew ${grewMb.toFixed(1)} MB`);
      // A running server whose envFile became one of these may not stay either.
      assert.match(String(await gate.mayStay(defs[0]!)), /is not read/);
    }
    assert.equal(questions, 0, 'nothing asked: the start could only fail');
    gate.dispose();
    consents.dispose();
  });

  test("a user server's envFile is read at its start the same way: /dev/zero and a pipe are refused with the sentence", async () => {
    for (const [path, cause] of HOSTILE) {
      const store = new DisposableStore();
      const log = new RedactingLog(new MemoryLog());
      const { value: error, ms } = await measured(() =>
        createTransport({ type: 'stdio', command: process.execPath, args: [], env: {}, envFile: path }, log, store, { stderrLine: () => undefined, stdoutNoise: () => undefined }).then(
          () => assert.fail(`${path} was read`),
          (e: Error) => e,
        ),
      );
      assert.match(error.message, new RegExp(`^the envFile "${path.replace(/[()]/g, '\\$&')}" ${cause.source}`));
      assert.ok(ms < 500, `${path} refused at the start in ${ms.toFixed(1)} ms`);
      store.dispose();
    }
  });

  test('.vscode/mcp.json as /dev/zero (a symlink), a pipe, a folder or 2 MB: refused with the cause, never read; a missing one is missing', async () => {
    const cases: ReadonlyArray<readonly [make: (file: string) => void, kind: string]> = [
      [(f) => symlinkSync('/dev/zero', f), 'a character device'],
      [(f) => execFileSync('mkfifo', [f]), 'a named pipe (FIFO)'],
      [(f) => mkdirSync(f), 'a folder'],
      [(f) => writeFileSync(f, Buffer.alloc(2 * 1024 * 1024, ' ')), 'too-large'],
    ];
    for (const [i, [make, kind]] of cases.entries()) {
      const folder = join(dir, `ws${i}`);
      mkdirSync(join(folder, '.vscode'), { recursive: true });
      const file = join(folder, '.vscode', 'mcp.json');
      assert.deepEqual(await readConfigFile(file), { kind: 'missing' });
      make(file);
      const { value: read, ms, grewMb } = await measured(() => readConfigFile(file));
      assert.equal(read.kind, 'refused', JSON.stringify(read));
      assert.ok(read.kind === 'refused');
      assert.equal(read.refusal.kind === 'not-regular' ? read.refusal.what : read.refusal.kind, kind);
      assert.ok(ms < 500, `mcp.json (${kind}) refused in ${ms.toFixed(1)} ms`);
      assert.ok(grewMb < 8, `mcp.json (${kind}): heap and buffers grew ${grewMb.toFixed(1)} MB`);
    }
    const good = join(dir, 'good-mcp.json');
    writeFileSync(good, '{ "servers": {} }');
    assert.deepEqual(await readConfigFile(good), { kind: 'text', text: '{ "servers": {} }' });
  });
});
