/**
 * Reading a file a server definition names (its `envFile`) or is defined in (`.vscode/mcp.json`),
 * bounded: a workspace chooses these paths, and `/dev/zero`, a named pipe with no writer, a folder
 * or a 2 GB file must cost nothing before any question is asked.
 *
 * The path is `stat`ed first and only a regular file of at most {@link MAX_CONFIG_FILE_BYTES} is
 * opened; it is opened without blocking (a pipe swapped in after the `stat` does not hang a
 * thread of the pool), checked again on the open handle, and read up to the bound plus one byte
 * (a file that grows meanwhile, or one that says it is empty and is not, like `/proc` files,
 * is still cut off at the bound).
 */
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { quoteText } from '../base/quote.js';

/** The largest envFile or mcp.json read (1 MB): far more than any real one. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** Why a file was not read. */
export type FileRefusal =
  /** Not a regular file: a character or block device, a named pipe, a socket or a folder. */
  | { readonly kind: 'not-regular'; readonly what: 'a character device' | 'a block device' | 'a named pipe (FIFO)' | 'a socket' | 'a folder' | 'not a regular file' }
  /** Larger than the bound (`bytes`: at least this many). */
  | { readonly kind: 'too-large'; readonly bytes: number; readonly limit: number };

/** A file that was not read because of what it is ({@link FileRefusal}); its message is one sentence naming the file and the cause. */
export class FileRefusedError extends Error {
  constructor(
    readonly file: string,
    readonly refusal: FileRefusal,
  ) {
    super(refusalSentence(file, refusal));
    this.name = 'FileRefusedError';
  }
}

/** `"<file>" is not read: <cause>`. */
export function refusalSentence(file: string, r: FileRefusal): string {
  switch (r.kind) {
    case 'not-regular':
      return `${quoteText(file)} is not read: it is ${r.what === 'not a regular file' ? 'not a regular file' : `${r.what}, not a regular file`}`;
    case 'too-large':
      // `bytes` is the stat's size, or (a file that grew, or one whose stat says nothing) the bound plus the one byte that showed it is over.
      return `${quoteText(file)} is not read: it ${r.bytes > r.limit + 1 ? `is ${size(r.bytes)}` : 'holds more'}, over the ${size(r.limit)} a configuration file may have`;
  }
}

/**
 * The text of a regular file of at most `limit` bytes (UTF-8). Throws {@link FileRefusedError} for
 * anything else, or the file system's own error (ENOENT, EACCES) when it cannot be opened.
 */
export async function readBoundedText(path: string, limit = MAX_CONFIG_FILE_BYTES): Promise<string> {
  refuseUnlessRegular(path, await stat(path), limit);
  // O_NONBLOCK: a pipe swapped in after the stat opens at once instead of waiting for a writer (POSIX; 0 elsewhere).
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    refuseUnlessRegular(path, await handle.stat(), limit);
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > limit) throw new FileRefusedError(path, { kind: 'too-large', bytes: length, limit });
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

function refuseUnlessRegular(path: string, s: Stats, limit: number): void {
  if (!s.isFile()) throw new FileRefusedError(path, { kind: 'not-regular', what: kindOf(s) });
  if (s.size > limit) throw new FileRefusedError(path, { kind: 'too-large', bytes: s.size, limit });
}

function kindOf(s: Stats): Extract<FileRefusal, { kind: 'not-regular' }>['what'] {
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a folder';
  return 'not a regular file';
}

function size(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** A configuration file (`.vscode/mcp.json`) as read: its text, none there, refused for what it is, or unreadable. */
export type ConfigFileRead =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'refused'; readonly refusal: FileRefusal }
  | { readonly kind: 'unreadable'; readonly message: string };

/** Reads a configuration file with {@link readBoundedText}; never throws (the UI words each outcome). */
export async function readConfigFile(path: string, limit = MAX_CONFIG_FILE_BYTES): Promise<ConfigFileRead> {
  try {
    return { kind: 'text', text: await readBoundedText(path, limit) };
  } catch (e) {
    if (e instanceof FileRefusedError) return { kind: 'refused', refusal: e.refusal };
    if ((e as NodeJS.ErrnoException)?.code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', message: e instanceof Error ? e.message : String(e) };
  }
}
