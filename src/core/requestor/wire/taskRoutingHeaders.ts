/**
 * The Tasks extension's routing headers on Streamable HTTP (modelcontextprotocol/
 * experimental-ext-tasks, specification/draft/tasks.md §Streamable HTTP: Routing Headers): a
 * `tasks/get`, `tasks/update` or `tasks/cancel` sent over Streamable HTTP carries `Mcp-Name` set
 * to its `params.taskId` (so load balancers can route it to the instance holding the task), and
 * `Mcp-Method` set to the method name (the 2026-07-28 standard header conventions, SEP-2243).
 *
 * The SDK's StreamableHTTPClientTransport takes no per-message headers, so this `fetch` wrapper
 * reads the JSON-RPC body it POSTs. Only requests on the 2026-07-28 wire are touched: those that
 * carry the extension's client capability in `_meta` (added by `TasksExtensionTransport`); the
 * 2025-11-25 `tasks/*` requests are left as they are.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

const ROUTED: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/**
 * A header value per the standard headers' value encoding: printable ASCII without leading or
 * trailing whitespace as it is; anything else (non-ASCII, control characters, edge whitespace, or
 * a value that itself looks like the sentinel) as `=?base64?{Base64 of the UTF-8 bytes}?=`.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !/^=\?base64\?.*\?=$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The routing headers a POST body needs (empty when it is not a 2026-07-28 tasks/* request). */
export function taskRoutingHeaders(body: unknown): Record<string, string> {
  if (typeof body !== 'string' || !body.includes('tasks/')) return {};
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return {};
  }
  const m = message as { method?: unknown; params?: { taskId?: unknown; _meta?: Record<string, unknown> } } | null;
  if (!m || typeof m.method !== 'string' || !ROUTED.has(m.method) || typeof m.params?.taskId !== 'string') return {};
  const capabilities = m.params._meta?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  if (!capabilities?.extensions?.[TASKS]) return {};
  return { 'Mcp-Method': m.method, 'Mcp-Name': encodeHeaderValue(m.params.taskId) };
}

/** Wraps `inner`: POSTs of 2026-07-28 `tasks/get|update|cancel` gain `Mcp-Name` and `Mcp-Method`. */
export function withTaskRoutingHeaders(inner: FetchLike): FetchLike {
  return (url, init) => {
    const extra = init?.method === 'POST' ? taskRoutingHeaders(init.body) : {};
    if (!Object.keys(extra).length) return inner(url, init);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(extra)) headers.set(k, v);
    return inner(url, { ...init, headers });
  };
}
