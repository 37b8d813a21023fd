/**
 * A URL that answers with a web page instead of MCP (a wrong path, a proxy's login page, a
 * legacy SSE server spoken to as Streamable HTTP) would otherwise fail with the SDK quoting the
 * raw HTML. This `fetch` wrapper turns such an answer into one clear sentence.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

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

/**
 * Wraps `inner`: an answer of the MCP endpoint (`endpoint`, or for legacy SSE any path of its
 * origin but OAuth's) whose content type is `text/html` fails with {@link HtmlAnswerError}. Other
 * requests through the same fetch — OAuth discovery probing `/.well-known/…` URLs, where a 404 page
 * is an expected answer the SDK moves past — are left as they are.
 */
export function refuseHtml(inner: FetchLike, legacySse: boolean, endpoint?: URL): FetchLike {
  return async (url, init) => {
    const res = await inner(url, init);
    if (/^\s*text\/html\b/i.test(res.headers.get('content-type') ?? '') && isMcpEndpoint(String(url), legacySse, endpoint)) {
      await res.body?.cancel().catch(() => undefined);
      throw new HtmlAnswerError(res.status, String(url), legacySse);
    }
    return res;
  };
}

const OAUTH_PATHS = /^\/(\.well-known\/|authorize$|token$|register$)/;

function isMcpEndpoint(url: string, legacySse: boolean, endpoint: URL | undefined): boolean {
  if (!endpoint) return true;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return true;
  }
  if (u.origin !== endpoint.origin) return false;
  if (u.pathname === endpoint.pathname) return true;
  return legacySse && !OAUTH_PATHS.test(u.pathname);
}
