// What the 2026-07-28 demo server saw, for the tests (its `ext_stats` tool): each request as it
// arrived (the per-request `_meta` envelope, and over Streamable HTTP the standard headers), each
// `input_required` round a tool was re-entered with, and how every echoed `requestState` fared
// against the server's seal. One record per process: stateless HTTP builds a server per request.

/** Most records kept of each kind (a long demo session stays bounded). */
const MAX_RECORDS = 1000;

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** One inbound request as the wire carried it. */
export interface SeenRequest {
  method: string;
  /** `params.name` (tools/call) or `params.taskId` (tasks/*). */
  name?: string;
  /** The per-request envelope: its protocol revision, client name, and the extensions its capabilities declare. */
  envelope?: { protocolVersion?: unknown; clientName?: unknown; extensions: string[] };
  /** Over Streamable HTTP: the standard headers of the POST. */
  headers?: { protocolVersion?: string; mcpMethod?: string; mcpName?: string };
}

/** One entry of a tool into an `input_required` flow: the round (its sealed step) and what each answer was. */
export interface SeenRound {
  tool: string;
  step: string;
  /** Per `inputResponses` key: `accept`/`decline`/`cancel` (elicitation), `sampling`, or `missing`. */
  responses: Record<string, string>;
}

export class Seen2026 {
  readonly requests: SeenRequest[] = [];
  readonly rounds: SeenRound[] = [];
  /** Echoed `requestState` values the seal accepted and refused. */
  readonly requestStates = { verified: 0, rejected: 0 };

  /** Records an inbound JSON-RPC message (requests only), with the HTTP headers when there are any. */
  request(message: unknown, headers?: SeenRequest['headers']): void {
    const m = message as { id?: unknown; method?: unknown; params?: { name?: unknown; taskId?: unknown; _meta?: Record<string, unknown> } } | null;
    if (!m || typeof m !== 'object' || typeof m.method !== 'string' || m.id === undefined) return;
    const meta = m.params?._meta;
    const capabilities = meta?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
    const name = typeof m.params?.name === 'string' ? m.params.name : typeof m.params?.taskId === 'string' ? m.params.taskId : undefined;
    push(this.requests, {
      method: m.method,
      ...(name !== undefined ? { name } : {}),
      ...(meta && (PROTOCOL_VERSION in meta || CLIENT_CAPABILITIES in meta)
        ? { envelope: { protocolVersion: meta[PROTOCOL_VERSION], clientName: (meta[CLIENT_INFO] as { name?: unknown } | undefined)?.name, extensions: Object.keys(capabilities?.extensions ?? {}) } }
        : {}),
      ...(headers ? { headers } : {}),
    });
  }

  round(round: SeenRound): void {
    push(this.rounds, round);
  }

  snapshot() {
    return { requests: this.requests, rounds: this.rounds, requestStates: this.requestStates };
  }
}

function push<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > MAX_RECORDS) list.splice(0, list.length - MAX_RECORDS);
}
