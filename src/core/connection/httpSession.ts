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
  // Read (and dropped) from sessions kept by earlier versions; none is written any more.
  instructions: z.string().optional(),
});

/**
 * Most JSON characters one kept session takes in the workspace's storage. A server decides what its
 * handshake says (its capabilities, serverInfo and instructions); what is kept of it for a resume is
 * what the host reads ({@link storableSession}), and a session that would still take more is not kept.
 */
export const MAX_STORED_SESSION_CHARS = 8 * 1024;
/** Most values (objects, flags, short scalars) kept of a server's capabilities. */
const MAX_CAPABILITY_NODES = 256;
const MAX_CAPABILITY_DEPTH = 6;
const MAX_CAPABILITY_TEXT = 100;
const MAX_SERVER_INFO_TEXT = 128;

/**
 * What is kept of a session: its id and protocol revision, the capabilities as flags (objects,
 * booleans, numbers and strings up to 100 characters, at most 6 levels deep; longer strings, arrays
 * and anything past 256 values are left out — the host and the SDK read only the presence of
 * capabilities and their flags), serverInfo's name, version and title (each at most 128
 * characters), and no instructions (the host does not read them). `refused` when even that would
 * take more than {@link MAX_STORED_SESSION_CHARS}, or the capabilities have more values than kept.
 */
export function storableSession(session: SavedSession): { readonly session: SavedSession } | { readonly refused: string } {
  const budget = { nodes: MAX_CAPABILITY_NODES };
  const capabilities = capabilityFlags(session.capabilities, 0, budget) ?? {};
  if (budget.nodes < 0) return { refused: `its capabilities declare more than ${MAX_CAPABILITY_NODES} values` };
  const info = session.serverInfo;
  const kept: SavedSession = {
    sessionId: session.sessionId,
    protocolVersion: session.protocolVersion,
    capabilities: capabilities as ServerCapabilities,
    ...(info
      ? {
          serverInfo: {
            name: String(info.name).slice(0, MAX_SERVER_INFO_TEXT),
            version: String(info.version).slice(0, MAX_SERVER_INFO_TEXT),
            ...(typeof info.title === 'string' ? { title: info.title.slice(0, MAX_SERVER_INFO_TEXT) } : {}),
          },
        }
      : {}),
  };
  const size = JSON.stringify(kept).length;
  if (size > MAX_STORED_SESSION_CHARS) return { refused: `what it would keep takes ${size} characters (at most ${MAX_STORED_SESSION_CHARS})` };
  return { session: kept };
}

/** The capability flags of `value` (see {@link storableSession}); counts what it keeps against `budget`. */
function capabilityFlags(value: unknown, depth: number, budget: { nodes: number }): unknown {
  if (budget.nodes-- <= 0) return undefined;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (typeof value === 'string') return value.length <= MAX_CAPABILITY_TEXT ? value : undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value) || depth >= MAX_CAPABILITY_DEPTH) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.length > MAX_CAPABILITY_TEXT) continue;
    const kept = capabilityFlags(v, depth + 1, budget);
    if (budget.nodes < 0) return out;
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

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
  const read: SavedSession = {
    sessionId: s.sessionId,
    protocolVersion: s.protocolVersion,
    capabilities: s.capabilities as ServerCapabilities,
    ...(s.serverInfo ? { serverInfo: s.serverInfo as Implementation } : {}),
  };
  // Kept by an earlier version, perhaps whole (megabytes of capabilities, the instructions): bounded, or forgotten.
  const bounded = storableSession(read);
  if ('refused' in bounded) {
    store.set(key, undefined);
    return undefined;
  }
  if (s.instructions !== undefined || JSON.stringify(bounded.session).length < JSON.stringify(read).length) store.set(key, bounded.session);
  return bounded.session;
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
