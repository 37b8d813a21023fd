/**
 * The session of one connection across windows (httpSession.ts keeps the store): a Streamable HTTP
 * session, or the session of a stdio server the server host runs (hostedStdio.ts) — which kept
 * session a start offers, whether the server still has it, what is written down after a
 * handshake, and forgetting it when the user stops the server or the server refuses it.
 */
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import type { ServerLog } from '../base/log.js';
import type { ServerDefinition, TransportDefinition } from '../config/config.js';
import type { HostClient } from './hostClient.js';
import { describeRefusal, isSessionGone, readSession, sessionKey, storableSession, type SavedSession, type SessionStore } from './httpSession.js';
import { continueRequestIds, restoreSessionState, sessionResumeProblems } from './sdkInternals.js';
import { hostedSessionKey } from './hostedStdio.js';
import { HostedTransport } from './hostedTransport.js';

/** What a start offers: the key its session is kept under (none: not kept) and the session of before. */
export interface SessionOffer {
  readonly key?: string;
  readonly saved?: SavedSession;
}

/**
 * The session after a handshake: the kept one `resumed`, or `refused` by the server (`refusal`
 * says how, in a few words; it is forgotten), or a `new` one (written down where sessions are kept).
 */
export type SessionOutcome = { readonly kind: 'resumed' } | { readonly kind: 'refused'; readonly refusal: string } | { readonly kind: 'new'; readonly replaced?: string };

export class SessionKeeper {
  /** The key of the session kept for this connection, once there is one. */
  private _key?: string;

  constructor(
    private readonly _definition: ServerDefinition,
    private readonly _store: SessionStore | undefined,
    private readonly _log: ServerLog,
  ) {}

  /**
   * The session a start on `transport` offers. Only Streamable HTTP has sessions; a transport made
   * by a factory (tests, bench) is not the server's own. An SDK whose private shape changed
   * resumes nothing (sdkInternals.ts), and says so.
   */
  offer(transport: TransportDefinition, madeByFactory: boolean, hosted = false): SessionOffer {
    if (!this._store || madeByFactory) return {};
    if (transport.type === 'stdio' && !hosted) return {};
    if (transport.type === 'http' && transport.legacySse) return {};
    const key = transport.type === 'http' ? sessionKey(this._definition, transport.url) : hostedSessionKey(this._definition);
    const problems = sessionResumeProblems();
    if (problems.length) {
      this._log.warn(`sessions are not resumed: ${problems.join('; ')}`);
      return { key };
    }
    return { key, saved: readSession(this._store, key) };
  }

  /** After the handshake on `client`: the offered session resumed, or the new one kept. Throws as {@link _resume}. */
  async settle(offer: SessionOffer, client: HostClient, transport: Transport, timeoutMs: number): Promise<SessionOutcome> {
    if (offer.key === undefined) return { kind: 'new' };
    if (transport instanceof HostedTransport) return this._settleHosted(offer.key, offer.saved, client, transport);
    if (!offer.saved) {
      this._keep(offer.key, client, transport);
      return { kind: 'new' };
    }
    const outcome = await this._resume(client, transport, offer.saved, offer.key, timeoutMs);
    if (outcome.kind === 'refused') {
      this._store?.set(offer.key, undefined);
      this._key = undefined;
    }
    return outcome;
  }

  /**
   * Resumes `saved` on a connected client: its state restored, the server asked (a ping) whether it
   * still has it, its stream of server messages opened again. A failure other than a refusal
   * throws (the server is down, say): the session stays kept for the next try.
   */
  private async _resume(client: HostClient, transport: Transport, saved: SavedSession, key: string, timeoutMs: number): Promise<Exclude<SessionOutcome, { kind: 'new' }>> {
    try {
      restoreSessionState(client, saved);
      // The server may still have requests of the last window open in this session (a `tasks/result`
      // whose stream is resumed: requestor/wire/resultStream.ts): this window's ids must not be theirs.
      continueRequestIds(client, resumedRequestIdFloor());
      await client.ping({ timeout: timeoutMs });
    } catch (e) {
      if (!isSessionGone(e)) throw e;
      const refusal = describeRefusal(e);
      this._log.info(`the server no longer has session ${saved.sessionId} (${refusal}); starting a new one`);
      return { kind: 'refused', refusal };
    }
    this._key = key;
    this._log.info(`resumed session ${saved.sessionId} (MCP ${saved.protocolVersion})`);
    // The stream of messages the server sends outside any request (task status notifications…).
    if (transport instanceof StreamableHTTPClientTransport) void transport.resumeStream('').catch((e: unknown) => this._log.debug(`no stream of server messages: ${errorMessage(e)}`));
    return { kind: 'resumed' };
  }

  /**
   * Writes down a new 2025 session (its id and, bounded, what the handshake said: httpSession.ts
   * `storableSession`) for the next window; one whose handshake said too much is not kept, and
   * the log says why.
   */
  private _keep(key: string, client: HostClient, transport: Transport): void {
    const sessionId = transport.sessionId;
    const protocolVersion = client.getNegotiatedProtocolVersion();
    if (!sessionId || !protocolVersion || client.isModern) return;
    const serverInfo = client.getServerVersion();
    const kept = storableSession({ sessionId, protocolVersion, capabilities: client.getServerCapabilities() ?? {}, ...(serverInfo ? { serverInfo } : {}) });
    if ('refused' in kept) {
      this._log.warn(`session ${sessionId} is not kept for the next window (${kept.refused}); after a reload a new session starts`);
      return;
    }
    this._key = key;
    this._store?.set(key, kept.session);
  }

  /**
   * A hosted stdio server: reattached (the host still ran it, same definition), its session is
   * restored on the client without a handshake — the server's capabilities, identity and revision
   * as kept, the requests numbered after the last window's — and what it wrote meanwhile handed
   * over; else the new server's session is written down for the next window.
   */
  private _settleHosted(key: string, saved: SavedSession | undefined, client: HostClient, transport: HostedTransport): SessionOutcome {
    if (transport.sessionId && saved) {
      restoreSessionState(client, saved);
      continueRequestIds(client, transport.nextRequestId ?? 0);
      this._key = key;
      transport.deliverHeld();
      this._log.info(`resumed the session of the running server (MCP ${saved.protocolVersion})`);
      return { kind: 'resumed' };
    }
    const protocolVersion = client.getNegotiatedProtocolVersion();
    const serverId = transport.serverId;
    if (!serverId || !protocolVersion) return { kind: 'new', ...(transport.replaced ? { replaced: transport.replaced } : {}) };
    const serverInfo = client.getServerVersion();
    const kept = storableSession({ sessionId: serverId, protocolVersion, capabilities: client.getServerCapabilities() ?? {}, ...(serverInfo ? { serverInfo } : {}) });
    if ('refused' in kept) {
      this._log.warn(`the server's session is not kept for the next window (${kept.refused}); after a reload it starts anew`);
      this._store?.set(key, undefined);
    } else {
      this._key = key;
      this._store?.set(key, kept.session);
    }
    return { kind: 'new', ...(transport.replaced ? { replaced: transport.replaced } : {}) };
  }

  /** Forgets the kept session (of `lastUrl`, the URL last dialled, when none was kept in this window). */
  forget(lastUrl: string | undefined): void {
    const key = this._key ?? (this._definition.transport.type === 'http' ? (lastUrl ? sessionKey(this._definition, lastUrl) : undefined) : hostedSessionKey(this._definition));
    if (key !== undefined) this._store?.set(key, undefined);
    this._key = undefined;
  }
}

/**
 * Where a resumed Streamable HTTP session's request ids start: this window's start in microseconds
 * (ms × 1000), so they come after the ids of any earlier window of the session (numbered from 0, or
 * from its own start) unless that window sent more than a thousand requests per millisecond it
 * lived; within JSON-RPC's safe integers until the year 2255. Nothing is written per request.
 */
export function resumedRequestIdFloor(now = Date.now()): number {
  return Math.min(now * 1000, Number.MAX_SAFE_INTEGER - 2 ** 32);
}
