/**
 * Streamable HTTP sessions that outlive a window: a server that keeps its tasks per session
 * (like the official "everything" server) loses them with the session, so the session id of each
 * definition is kept (with what the handshake told about the server) and offered again after a
 * reload; a server that no longer has it (it restarted, say) answers 404, or a 400/401/403 whose
 * body says the session is unknown ({@link isSessionGone}), and a new session is made at once.
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

/** The message of a refusal's body: its JSON-RPC error message, or its text when it is not JSON. */
function refusalMessage(e: SdkHttpError): string {
  const text = typeof e.data.text === 'string' ? e.data.text : '';
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof m === 'string' ? m : '';
  } catch {
    return text.trim();
  }
}

/** How the server refused a session, in a few words ("HTTP 404: Session not found"). */
export function describeRefusal(e: unknown): string {
  if (e instanceof SdkHttpError) {
    const message = refusalMessage(e);
    return `HTTP ${e.status}${message ? `: ${message.slice(0, 200)}` : ''}`;
  }
  return e instanceof Error ? e.message.slice(0, 200) : String(e).slice(0, 200);
}

/**
 * Words by which a server says it does not know the session it was offered: "Session not found"
 * (the spec's 404, the SDK's server transport), "No valid session ID provided" (the official SDK's
 * example servers, the everything server among them, answer an unknown session so, with a 400),
 * "Invalid/Unknown/Expired session", "Session … expired/terminated/does not exist", and "Server not
 * initialized" (a single-session server that restarted has no session at all). Not "Mcp-Session-Id
 * header is required" (a request without one), nor "Parse error", "Invalid Request", "Unsupported
 * protocol version"…: those say the request is wrong, not that the session is gone.
 */
const UNKNOWN_SESSION =
  /\bno valid session\b|\b(?:invalid|unknown|expired) session\b|\bsession(?: id)? (?:not found|is invalid|is not valid|invalid|unknown|expired|has expired|does not exist|was terminated|has been terminated)\b|\bserver not initiali[sz]ed\b/i;

/**
 * Whether the server refused a session id it was offered (it no longer has that session). The
 * rule is narrow on purpose, because a refusal forgets the session and starts a new one (its tasks
 * then count as lost): an HTTP 404 (what the spec says a server answers to a session it does not
 * have), or an HTTP 400, 401 or 403 whose body says the session is unknown ({@link UNKNOWN_SESSION}).
 * A 400 for a malformed request, a 401 asking for a sign-in or a 403 denial is not a lost session.
 * Only asked of an answer to a request that carried the session id (a resume).
 */
export function isSessionGone(e: unknown): boolean {
  if (e instanceof SdkHttpError) {
    if (e.status === 404) return true;
    return (e.status === 400 || e.status === 401 || e.status === 403) && UNKNOWN_SESSION.test(refusalMessage(e));
  }
  return e instanceof ProtocolError && UNKNOWN_SESSION.test(e.message);
}
