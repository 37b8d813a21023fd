/**
 * The SDK `Client` as this host uses it, plus the capabilities it declares.
 */
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/sdk/types.js';

/**
 * R-CAP-1: sampling, elicitation (form and url) and the client-side task capabilities for
 * `sampling/createMessage` and `elicitation/create`, with `tasks/list` and `tasks/cancel`.
 */
export const HOST_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  tasks: {
    list: {},
    cancel: {},
    requests: {
      sampling: { createMessage: {} },
      elicitation: { create: {} },
    },
  },
};

interface ParseableSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };
  shape?: { method?: { value?: unknown; def?: { values?: unknown[] } } };
}

/**
 * An SDK `Client` whose request handlers answer malformed params with -32602 (Invalid params)
 * instead of the SDK's -32603 (R-ERR-1): the SDK parses params with zod and lets the ZodError
 * surface as an internal error. Everything else is the SDK's own behaviour.
 *
 * Never configure a `taskMessageQueue` on it: with one, the SDK routes the responses to a
 * server's related-task requests (sent while one of *our* tool tasks is `input_required`) into
 * our own queue and looks the server's task id up in our store ("Task not found").
 */
export class HostClient extends Client {
  constructor(info: Implementation, options: Omit<ClientOptions, 'taskMessageQueue'>) {
    super(info, options);
  }

  override setRequestHandler(...args: Parameters<Client['setRequestHandler']>): void {
    super.setRequestHandler(...args);
    const schema = args[0] as unknown as ParseableSchema;
    const method = methodOf(schema);
    // `_requestHandlers` is the SDK's dispatch table (a Map from method to handler).
    const handlers = (this as unknown as { _requestHandlers: Map<string, (req: unknown, extra: unknown) => Promise<unknown>> })._requestHandlers;
    const inner = method ? handlers.get(method) : undefined;
    if (!method || !inner) return;
    // The SDK's own handler parses the params before anything runs, so it fails on malformed
    // params without side effects. Checking them here only on failure (rather than before every
    // request) spares each valid request a second zod parse, and a plain `.catch` rather than an
    // async wrapper spares it ~260 bytes of garbage (bench/, row 1: tasks/get latency).
    const onError = (e: unknown, request: unknown): never => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue ? issue.path.filter((p) => p !== 'params').join('.') : '';
        throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}${where ? `: "${where}"` : ''}: ${issue?.message ?? 'invalid'}`);
      }
      throw withoutSdkPrefix(e);
    };
    handlers.set(method, (request, extra) => {
      let pending: Promise<unknown>;
      try {
        pending = inner(request, extra);
      } catch (e) {
        pending = Promise.reject(e);
      }
      return pending.catch((e: unknown) => onError(e, request));
    });
  }
}

/**
 * `McpError` puts "MCP error <code>: " in front of its message, which the SDK sends on the wire
 * and the receiving SDK prefixes again. Send the plain message with the same code and data.
 */
function withoutSdkPrefix(e: unknown): unknown {
  if (!(e instanceof McpError)) return e;
  const plain = new Error(e.message.replace(/^MCP error -?\d+: /, '')) as Error & { code: number; data?: unknown };
  plain.code = e.code;
  if (e.data !== undefined) plain.data = e.data;
  return plain;
}

function methodOf(schema: ParseableSchema): string | undefined {
  const m = schema.shape?.method;
  const v = m?.value ?? m?.def?.values?.[0];
  return typeof v === 'string' ? v : undefined;
}
