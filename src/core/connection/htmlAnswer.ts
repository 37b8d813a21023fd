/**
 * A URL that answers with a web page instead of MCP (a wrong path, a proxy's login page, a
 * legacy SSE server spoken to as Streamable HTTP) would otherwise fail with the SDK quoting the
 * raw HTML. This `fetch` wrapper turns such an answer into one clear sentence.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The server answered with HTML: not an MCP endpoint. */
export class HtmlAnswerError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    legacySse: boolean,
  ) {
    super(
      `${url} answered with an HTML page (HTTP ${status}), not MCP: check the URL` +
        (legacySse ? '' : `; if it is a legacy HTTP+SSE server (an endpoint like /sse), set "type": "sse"`),
    );
    this.name = 'HtmlAnswerError';
  }
}

/** Wraps `inner`: a response whose content type is `text/html` fails with {@link HtmlAnswerError}. */
export function refuseHtml(inner: FetchLike, legacySse: boolean): FetchLike {
  return async (url, init) => {
    const res = await inner(url, init);
    if (/^\s*text\/html\b/i.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel().catch(() => undefined);
      throw new HtmlAnswerError(res.status, String(url), legacySse);
    }
    return res;
  };
}
