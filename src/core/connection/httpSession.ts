/**
 * Streamable HTTP sessions that outlive a window: a server that keeps its tasks per session
 * (like the official "everything" server) loses them with the session, so the session id of each
 * definition is kept (with what the handshake told about the server) and offered again after a
 * reload; a server that no longer has it answers 404, and a new session is made.
 * Only 2025 sessions: a 2026-07-28 server has none.
 */
import { ProtocolError, SdkHttpError, type Implementation, type ServerCapabilities } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { definitionKey, type ServerDefinition } from '../config/config.js';
import type { SessionState } from './sdkInternals.js';

/** A session kept for a definition: its id and the server as the handshake described it. */
export interface SavedSession extends SessionState {
  readonly sessionId: string;
}

/** Where sessions are kept across windows (the workspace's storage); reads are validated. */
export interface SessionStore {
  get(key: string): unknown;
  set(key: string, session: SavedSession | undefined): void;
}

const SavedSessionSchema = z.object({
  sessionId: z.string().min(1).max(1024),
  protocolVersion: z.string().min(1).max(64),
  capabilities: z.looseObject({}),
  serverInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  instructions: z.string().max(100_000).optional(),
});

/** The key of a definition's session: its identity and the URL it resolved to. */
export function sessionKey(def: Pick<ServerDefinition, 'name' | 'source'>, url: string): string {
  return `${definitionKey(def)} ${url}`;
}

/** The kept session of `key`, if there is a valid one (anything else is dropped). */
export function readSession(store: SessionStore, key: string): SavedSession | undefined {
  const raw = store.get(key);
  if (raw === undefined) return undefined;
  const parsed = SavedSessionSchema.safeParse(raw);
  if (!parsed.success) {
    store.set(key, undefined);
    return undefined;
  }
  const s = parsed.data;
  return {
    sessionId: s.sessionId,
    protocolVersion: s.protocolVersion,
    capabilities: s.capabilities as ServerCapabilities,
    ...(s.serverInfo ? { serverInfo: s.serverInfo as Implementation } : {}),
    ...(s.instructions !== undefined ? { instructions: s.instructions } : {}),
  };
}

/** How the server refused a session, in a few words ("HTTP 404: Session not found"). */
export function describeRefusal(e: unknown): string {
  if (e instanceof SdkHttpError) {
    const text = typeof e.data.text === 'string' ? e.data.text : '';
    let message = '';
    try {
      const m = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
      if (typeof m === 'string') message = m;
    } catch {
      message = text.trim();
    }
    return `HTTP ${e.status}${message ? `: ${message.slice(0, 200)}` : ''}`;
  }
  return e instanceof Error ? e.message.slice(0, 200) : String(e).slice(0, 200);
}

/** Whether the server refused a session id it was offered (it no longer has that session). */
export function isSessionGone(e: unknown): boolean {
  if (e instanceof SdkHttpError) return e.status === 404;
  return e instanceof ProtocolError && /session not found/i.test(e.message);
}
