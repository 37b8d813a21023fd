/**
 * The headless client's "browser" for a sign-in: it fetches the authorization URL and follows
 * every redirect with fetch — to the authorization server's approval and on to the loopback
 * redirect the sign-in listens on — as the conformance suite's own example clients do. Only an
 * authorization server that approves without a person (a test server) completes this way.
 */
export async function followAuthorizationRedirects(url: URL, signal?: AbortSignal): Promise<void> {
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: 'manual', signal });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      if (response.ok) return; // the redirect target answered (our loopback listener)
      throw new Error(`the authorization page answered ${response.status} ${response.statusText}`);
    }
    next = new URL(location, next);
  }
  throw new Error('too many redirects from the authorization server');
}
