// An HTTP reverse proxy in front of a fixture MCP server that a test can take down for a while
// (an outage: nothing listens on its port), for the real-VS-Code suite's "a server that is down,
// then back by itself" test. Control on a port of its own: POST /down?ms=N takes the proxy's port
// down for N ms (open connections are cut), then it listens again on the same port.
import { createServer, request } from 'node:http';

/** Starts the proxy for `target` (an http://127.0.0.1:PORT/mcp URL); resolves with its URL and control URL. */
export async function startOutageProxy(target) {
  const to = new URL(target);
  const proxy = createServer((req, res) => {
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...endToEnd(req.headers), host: to.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, endToEnd(up.headers));
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const listen = (port) => new Promise((resolve) => proxy.listen(port, '127.0.0.1', () => resolve(proxy.address().port)));
  const port = await listen(0);
  let downUntil = 0;
  const control = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (req.method !== 'POST' || url.pathname !== '/down') return void res.writeHead(404).end();
    const ms = Number(url.searchParams.get('ms'));
    if (!Number.isInteger(ms) || ms <= 0 || ms > 600_000) return void res.writeHead(400).end('ms');
    downUntil = Date.now() + ms;
    proxy.close();
    proxy.closeAllConnections();
    setTimeout(() => void listen(port), ms).unref();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ downUntil }));
  });
  const controlPort = await new Promise((resolve) => control.listen(0, '127.0.0.1', () => resolve(control.address().port)));
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    control: `http://127.0.0.1:${controlPort}`,
    stop: () => {
      proxy.close();
      proxy.closeAllConnections();
      control.close();
    },
  };
}

/**
 * The headers a proxy passes on (RFC 9110 §7.6.1): not those of one connection. Passed on, a client's
 * `Connection: close` closed the proxy's kept connection to the server under the next request (the
 * server then answered that one 400): VS Code's proxy support sends every `node:http` request so.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
function endToEnd(headers) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}
