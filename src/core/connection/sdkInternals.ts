/**
 * The one place that reaches into the MCP SDK's private state, for what its public API cannot do:
 * - giving a client the server's capabilities, identity and protocol revision of a Streamable HTTP
 *   session it resumes (the SDK's `connect` on a transport that already has a session id skips the
 *   handshake, so a resumed client would otherwise know nothing of the server: an empty tool list);
 * - numbering a reattached stdio session's requests after those of the window before it
 *   (`Protocol._requestMessageId`), so the server never sees one id twice in its session, and taking
 *   the next id of that counter for the host's own `tools/call` (toolCall2026.ts), so both share one id space;
 * - handing a message already known to be a request to the SDK's request dispatch
 *   (`Protocol._onrequest`, private in SDK v2), without the SDK first trying it against the two
 *   strict response schemas it cannot pass (incomingDispatch.ts).
 *
 * {@link sdkShapeProblems} and {@link requestDispatchProblems} say at start-up whether the SDK still
 * has what each needs; a unit test fails on an SDK that changed shape, and the host then starts new
 * sessions instead of resuming, or leaves every incoming message to the SDK's own handler.
 */
import { Client, type Implementation, type JSONRPCRequest, type MessageExtraInfo, type ServerCapabilities } from '@modelcontextprotocol/client';

/** The private fields of the SDK `Client` a resumed session restores. */
const SESSION_FIELDS = ['_serverCapabilities', '_serverVersion', '_instructions', '_negotiatedProtocolVersion', '_requestMessageId'] as const;

/** What the SDK must have for a session to be resumed; empty when it has it all. */
export function sdkShapeProblems(): string[] {
  const probe = new Client({ name: 'shape-check', version: '0' });
  return SESSION_FIELDS.filter((f) => !(f in probe)).map((f) => `Client.${f} is missing`);
}

let checked: string[] | undefined;

/** {@link sdkShapeProblems}, found once per process (sessions are resumed only where it is empty). */
export function sessionResumeProblems(): readonly string[] {
  return (checked ??= sdkShapeProblems());
}

/** What the SDK must have for the request route of incomingDispatch.ts; empty when it has it. */
export function requestDispatchProblems(): string[] {
  const probe = new Client({ name: 'shape-check', version: '0' }) as unknown as { _onrequest?: unknown };
  return typeof probe._onrequest === 'function' && probe._onrequest.length === 2 ? [] : ['Client._onrequest(request, extra) is missing'];
}

let dispatchChecked: string[] | undefined;

/**
 * The SDK's request dispatch of `client` (what its message handler calls for a message that passed
 * its request check), or undefined when this SDK does not have it (see {@link requestDispatchProblems}).
 */
export function requestDispatchOf(client: Client): ((request: JSONRPCRequest, extra?: MessageExtraInfo) => void) | undefined {
  if ((dispatchChecked ??= requestDispatchProblems()).length) return undefined;
  const dispatch = (client as unknown as { _onrequest: (request: JSONRPCRequest, extra?: MessageExtraInfo) => void })._onrequest;
  return (request, extra) => dispatch.call(client, request, extra);
}

/** The server as the client knew it when the session was made. */
export interface SessionState {
  readonly capabilities: ServerCapabilities;
  readonly serverInfo?: Implementation;
  readonly instructions?: string;
  readonly protocolVersion: string;
}

/**
 * Gives `client` (connected on a transport that carries the session id) the state of the session.
 * Throws when the SDK no longer has the fields (see {@link sdkShapeProblems}).
 */
export function restoreSessionState(client: Client, state: SessionState): void {
  const problems = sessionResumeProblems();
  if (problems.length) throw new Error(`cannot resume a session with this MCP SDK (${problems.join('; ')})`);
  Object.assign(client as unknown as Record<string, unknown>, {
    _serverCapabilities: state.capabilities,
    _serverVersion: state.serverInfo,
    _instructions: state.instructions,
    _negotiatedProtocolVersion: state.protocolVersion,
  });
}

/**
 * A reattached stdio session (hostedTransport.ts): the client's requests are numbered from `next`,
 * after the last window's. Throws when the SDK no longer has the counter (see {@link sdkShapeProblems}).
 */
export function continueRequestIds(client: Client, next: number): void {
  const problems = sessionResumeProblems();
  if (problems.length) throw new Error(`cannot resume a session with this MCP SDK (${problems.join('; ')})`);
  const fields = client as unknown as { _requestMessageId: number };
  if (typeof fields._requestMessageId !== 'number') throw new Error('cannot resume a session with this MCP SDK (Client._requestMessageId is not a number)');
  fields._requestMessageId = Math.max(fields._requestMessageId, next);
}

/**
 * The next-id function of `client`'s request counter (the one the SDK numbers its requests with), for a
 * request the host sends itself (toolCall2026.ts); undefined when this SDK has no such counter (see
 * {@link sdkShapeProblems}): the host then leaves those requests to the SDK.
 */
export function requestIdsOf(client: Client): (() => number) | undefined {
  if (sessionResumeProblems().length) return undefined;
  const fields = client as unknown as { _requestMessageId: number };
  if (typeof fields._requestMessageId !== 'number') return undefined;
  return () => fields._requestMessageId++;
}
