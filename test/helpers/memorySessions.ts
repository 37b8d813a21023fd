/** A session store in memory (as the window's workspace state keeps them): a copy is kept, as storage would. */
import type { SavedSession, SessionStore } from '../../src/core/connection/httpSession.js';

export class MemorySessions implements SessionStore {
  readonly data = new Map<string, unknown>();
  get(key: string) {
    return this.data.get(key);
  }
  set(key: string, session: SavedSession | undefined) {
    if (session === undefined) this.data.delete(key);
    else this.data.set(key, structuredClone(session));
  }
}
