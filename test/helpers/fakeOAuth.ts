/**
 * A protected MCP resource and its authorization servers, answered in memory through a `fetch`
 * the SDK's `auth()` is handed: protected resource metadata (naming whichever authorization
 * server `current()` says), authorization server metadata, dynamic registration, a token
 * endpoint and any HEAD (the reachability check before a browser opens). Every request is
 * recorded. {@link approve} plays the browser: it answers an authorization URL by fetching its
 * redirect (to the sign-in's real loopback listener) with a code, the state and, if asked, `iss`.
 */
export const RESOURCE = 'https://mcp.example/mcp';

export interface FakeOAuthOptions {
  /** The authorization servers (their issuers, no trailing slash); the first is named unless `current` says otherwise. */
  readonly servers?: readonly string[];
  /** Which of them the resource names now. */
  readonly current?: () => string;
  /** The authorization endpoint every metadata document names (default `<issuer>/authorize`). */
  readonly authorizationEndpoint?: string;
  /** `authorization_response_iss_parameter_supported` in the metadata. */
  readonly issParameterSupported?: boolean;
  /** `dpop_signing_alg_values_supported` in the metadata. */
  readonly dpopAlgs?: readonly string[];
  /** The client id a registration at `issuer` gets. */
  readonly register?: (issuer: string) => string;
  /** Whether the token endpoint of `issuer` grants this request (default: always). */
  readonly token?: (body: URLSearchParams, issuer: string, headers: Headers) => boolean;
}

export interface RecordedRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Headers;
  readonly body: URLSearchParams;
}

export function fakeOAuth(o: FakeOAuthOptions = {}) {
  const servers = o.servers ?? ['https://as.example'];
  const requests: RecordedRequest[] = [];
  let issued = 0;
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fetchFn = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    requests.push({ url, method, headers, body: new URLSearchParams(typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body : '') });
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) return json({ resource: RESOURCE, authorization_servers: [o.current?.() ?? servers[0]] });
    const as = servers.find((s) => url.origin === new URL(s).origin);
    if (method === 'HEAD') return new Response(null, { status: 200 });
    if (!as) return new Response('not found', { status: 404 });
    if (url.pathname.startsWith('/.well-known/')) {
      return json({
        issuer: as,
        authorization_endpoint: o.authorizationEndpoint ?? `${as}/authorize`,
        token_endpoint: `${as}/token`,
        registration_endpoint: `${as}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        ...(o.issParameterSupported !== undefined ? { authorization_response_iss_parameter_supported: o.issParameterSupported } : {}),
        ...(o.dpopAlgs ? { dpop_signing_alg_values_supported: o.dpopAlgs } : {}),
      });
    }
    if (url.pathname === '/register' && method === 'POST') return json({ client_id: o.register?.(as) ?? `client-of-${new URL(as).host}`, redirect_uris: ['http://127.0.0.1/callback'] }, 201);
    if (url.pathname === '/token' && method === 'POST') {
      const body = new URLSearchParams(String(init?.body));
      if (o.token && !o.token(body, as, headers)) return json({ error: 'invalid_grant' }, 400);
      issued++;
      const dpop = headers.has('dpop');
      return json({ access_token: `access-${issued}`, token_type: dpop ? 'DPoP' : 'Bearer', refresh_token: `refresh-${issued}`, expires_in: 3600 });
    }
    return new Response('not found', { status: 404 });
  };
  return { server: RESOURCE, fetchFn, requests };
}

/**
 * The browser of a sign-in at a fake authorization server that approves at once: back to the
 * authorization URL's `redirect_uri` with `code`, its `state` and (unless undefined) `iss`.
 */
export async function approve(url: URL, back: { code?: string; iss?: string; error?: string; errorDescription?: string } = {}): Promise<void> {
  const redirect = new URL(url.searchParams.get('redirect_uri')!);
  if (back.error) {
    redirect.searchParams.set('error', back.error);
    if (back.errorDescription) redirect.searchParams.set('error_description', back.errorDescription);
  } else {
    redirect.searchParams.set('code', back.code ?? 'code-1');
  }
  redirect.searchParams.set('state', url.searchParams.get('state') ?? '');
  if (back.iss !== undefined) redirect.searchParams.set('iss', back.iss);
  const answer = await fetch(redirect);
  await answer.body?.cancel();
}
