/**
 * The frames a window and the server host exchange over the host's Unix socket: one JSON object
 * per line, each checked with zod where it arrives (anything else closes the connection). The
 * first frame a window sends is `hello` with the host's token; nothing else is read before it.
 * A server's own JSON-RPC travels inside `send` / `out` frames as the line it is, unparsed here.
 */
import { z } from 'zod';

/** The largest line a server may write on stdout (as the window's own stdio transport). */
export const MAX_SERVER_LINE_BYTES = 10 * 1024 * 1024;
/** The largest frame read from an authenticated peer: a server line, JSON-escaped, with room to spare. */
export const MAX_FRAME_BYTES = 4 * MAX_SERVER_LINE_BYTES;
/** The largest frame read before the token was shown (a `hello` is a few dozen bytes). */
export const MAX_HELLO_BYTES = 1024;

const serverId = z.string().regex(/^[0-9a-f]{32}$/);
const rid = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const graceMs = z.number().int().min(0).max(24 * 3_600_000);

/** Why a server the host owned is no longer running: each said in words by the window (`describeEnd`). */
export const EndReasonSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exited'), code: z.number().int().nullable(), signal: z.string().max(32).nullable() }),
  z.object({ kind: z.literal('buffer-full'), limitBytes: z.number().int() }),
  z.object({ kind: z.literal('grace-expired'), graceMs }),
  z.object({ kind: z.literal('oversized'), limitBytes: z.number().int() }),
  z.object({ kind: z.literal('stopped') }),
  z.object({ kind: z.literal('unknown') }),
]);
export type EndReason = z.infer<typeof EndReasonSchema>;

export const SpawnSpecSchema = z.object({
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(32_768)).max(1024),
  env: z.record(z.string().max(4096), z.string().max(1_048_576)),
  cwd: z.string().max(4096).optional(),
});
export type SpawnSpec = z.infer<typeof SpawnSpecSchema>;

/** What a window sends. */
export const WindowFrameSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('hello'), token: z.string().regex(/^[0-9a-f]+$/).max(256) }),
  z.object({ t: z.literal('spawn'), rid, spec: SpawnSpecSchema, fingerprint: z.string().max(128), graceMs, label: z.string().max(256) }),
  z.object({ t: z.literal('attach'), rid, serverId, graceMs }),
  z.object({ t: z.literal('send'), serverId, line: z.string().max(MAX_FRAME_BYTES) }),
  z.object({ t: z.literal('stop'), rid, serverId }),
  z.object({ t: z.literal('detach'), serverId }),
]);
export type WindowFrame = z.infer<typeof WindowFrameSchema>;

/** What the host sends. */
export const HostFrameSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('welcome'), hostPid: z.number().int() }),
  z.object({ t: z.literal('spawned'), rid, serverId, pid: z.number().int() }),
  z.object({ t: z.literal('failed'), rid, message: z.string().max(2000), code: z.string().max(64).optional(), syscall: z.string().max(64).optional(), path: z.string().max(4096).optional() }),
  z.object({ t: z.literal('attached'), rid, serverId, pid: z.number().int(), fingerprint: z.string().max(128), nextRequestId: z.number().int().nonnegative() }),
  z.object({ t: z.literal('gone'), rid, serverId, reason: EndReasonSchema }),
  z.object({ t: z.literal('stopped'), rid, serverId }),
  z.object({ t: z.literal('out'), serverId, line: z.string().max(MAX_FRAME_BYTES) }),
  z.object({ t: z.literal('err'), serverId, line: z.string().max(MAX_FRAME_BYTES) }),
  z.object({ t: z.literal('exit'), serverId, reason: EndReasonSchema }),
  z.object({ t: z.literal('taken'), serverId }),
]);
export type HostFrame = z.infer<typeof HostFrameSchema>;

/**
 * Splits a byte stream into lines, each at most `max()` bytes (checked before a line is complete,
 * so a peer cannot make the reader hold more): `onLine` gets each, `onOversized` is told once.
 */
export class LineReader {
  private _chunks: Buffer[] = [];
  private _size = 0;
  private _dead = false;

  constructor(
    private readonly _max: () => number,
    private readonly _onLine: (line: string) => void,
    private readonly _onOversized: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this._dead) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        const rest = chunk.subarray(start);
        this._size += rest.length;
        if (this._size > this._max()) return this._oversized();
        if (rest.length) this._chunks.push(rest);
        return;
      }
      const part = chunk.subarray(start, nl);
      if (this._size + part.length > this._max()) return this._oversized();
      const line = this._chunks.length ? Buffer.concat([...this._chunks, part]).toString('utf8') : part.toString('utf8');
      this._chunks = [];
      this._size = 0;
      start = nl + 1;
      const text = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (text.trim()) this._onLine(text);
    }
  }

  private _oversized(): void {
    this._dead = true;
    this._chunks = [];
    this._size = 0;
    this._onOversized();
  }
}

/** A frame as it goes on the socket. */
export function encodeFrame(frame: WindowFrame | HostFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/** A line read as one of `schema`'s frames, or undefined when it is not JSON or not such a frame. */
export function decodeFrame<T>(schema: z.ZodType<T>, line: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** How a server's end reads in a sentence ("it was ended because no window came back within 120 s"). */
export function describeEnd(reason: EndReason): string {
  switch (reason.kind) {
    case 'exited':
      return reason.signal ? `killed by ${reason.signal}` : `exit code ${reason.code ?? 'unknown'}`;
    case 'buffer-full':
      return `the server host ended it: it wrote more than ${Math.round(reason.limitBytes / 1024)} KB while no window was attached`;
    case 'grace-expired':
      return `the server host ended it: no window came back within ${Math.round(reason.graceMs / 1000)} s`;
    case 'oversized':
      return `the server host ended it: it wrote a line over ${Math.round(reason.limitBytes / 1024 / 1024)} MB`;
    case 'stopped':
      return 'it was stopped';
    case 'unknown':
      return 'the server host does not know it (the host was restarted, or it ended long ago)';
  }
}
