/**
 * The server host's private folder: a directory only this user can enter (0700, owned by this
 * user, not a symbolic link — checked before every use, since another user could have made it
 * first in a shared temporary folder), holding the host's Unix socket and its token (32 random
 * bytes as hex, in a 0600 file). A connection that does not show the token is closed.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { join } from 'node:path';

/** Token length in bytes (written as hex). */
export const TOKEN_BYTES = 32;

/**
 * The version of the frames (frames.ts) the host speaks. It names the socket, so windows of an
 * extension whose frames changed start a host of their own rather than meet one they cannot read
 * (the one of before keeps its servers until they end).
 */
export const HOST_PROTOCOL_VERSION = 1;

/** Paths inside the folder. */
export function hostPaths(dir: string): { readonly socket: string; readonly token: string } {
  return { socket: join(dir, `host-v${HOST_PROTOCOL_VERSION}.sock`), token: join(dir, 'token') };
}

/** A folder or token that may not be used, with why. */
export class PrivateDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateDirError';
  }
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}

/** Checks that `path` is a directory (not a link) owned by this user, that nobody else may enter. */
export async function checkPrivateDir(path: string): Promise<void> {
  const st = await fs.lstat(path);
  if (!st.isDirectory()) throw new PrivateDirError(`${path} is not a directory`);
  if (st.uid !== uid()) throw new PrivateDirError(`${path} belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) !== 0) throw new PrivateDirError(`${path} may be entered by other users (mode ${(st.mode & 0o777).toString(8)})`);
}

/** Makes the folder (0700) when it is not there, then checks it. */
export async function ensurePrivateDir(path: string): Promise<void> {
  try {
    await fs.mkdir(path, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  await checkPrivateDir(path);
}

/** Reads the token of the folder, checking the file is this user's, a plain file, and 0600 or stricter. */
export async function readToken(dir: string): Promise<string> {
  const path = hostPaths(dir).token;
  const handle = await fs.open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new PrivateDirError(`${path} is not a file`);
    if (st.uid !== uid()) throw new PrivateDirError(`${path} belongs to another user (uid ${st.uid})`);
    if ((st.mode & 0o077) !== 0) throw new PrivateDirError(`${path} may be read by other users (mode ${(st.mode & 0o777).toString(8)})`);
    const token = (await handle.readFile('utf8')).trim();
    if (!/^[0-9a-f]+$/.test(token) || token.length < TOKEN_BYTES * 2) throw new PrivateDirError(`${path} does not hold a token`);
    return token;
  } finally {
    await handle.close();
  }
}

/**
 * The folder's token: the one there, or a new one written exclusively (0600) when there is none.
 * The folder is checked first.
 */
export async function ensureToken(dir: string): Promise<string> {
  await ensurePrivateDir(dir);
  try {
    return await readToken(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = randomBytes(TOKEN_BYTES).toString('hex');
  try {
    await fs.writeFile(hostPaths(dir).token, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (e) {
    // Another window wrote it first: that one is the token.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return readToken(dir);
    throw e;
  }
}
