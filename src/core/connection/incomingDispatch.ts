/**
 * How a {@link HostClient} reads what arrives on its transport: the SDK's own classification,
 * with the checks that cannot succeed left out.
 *
 * The SDK's `Protocol` tries every incoming message against four strict zod schemas in a fixed
 * order — result response, error response, request, notification — and dispatches on the first
 * that matches. A request or notification carries a string `method`, which the two strict response
 * schemas reject as an unrecognized key: for those, the SDK's first two checks are certain to fail,
 * and they cost about 2 µs each (a zod failure builds its issue list), a tenth of a `tasks/get`
 * round trip (bench/, row 1). This dispatcher runs only the check that can succeed — the SDK's own
 * `isJSONRPCRequest` or `isJSONRPCNotification` — and hands the message to the SDK's request or
 * notification dispatch, exactly where the SDK would have. Anything else (responses, and any
 * message that fails its check) goes to the SDK's handler unchanged, so malformed input meets the
 * SDK's own validation and errors.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCNotification, isJSONRPCRequest, type JSONRPCNotification, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

type OnMessage = NonNullable<Transport['onmessage']>;
export type MessageExtra = Parameters<OnMessage>[1];

export interface IncomingRoutes {
  /** The transport's handler from before the SDK connected; the SDK calls it first with every message. */
  readonly prior: Transport['onmessage'];
  /** The SDK's handler: classification and dispatch of everything not routed here. */
  readonly sdk: OnMessage;
  /** A request that passed the SDK's `isJSONRPCRequest`. */
  request(message: JSONRPCRequest, extra: MessageExtra): void;
  /** A notification that passed the SDK's `isJSONRPCNotification`. */
  notification(message: JSONRPCNotification): void;
}

export function incomingDispatch(routes: IncomingRoutes): OnMessage {
  const { prior, sdk } = routes;
  return (message, extra) => {
    const m = message as { method?: unknown; id?: unknown };
    if (typeof m.method === 'string') {
      if (m.id === undefined) {
        if (isJSONRPCNotification(message)) {
          prior?.(message, extra);
          routes.notification(message as JSONRPCNotification);
          return;
        }
      } else if (isJSONRPCRequest(message)) {
        prior?.(message, extra);
        routes.request(message as JSONRPCRequest, extra);
        return;
      }
    }
    sdk(message, extra);
  };
}
