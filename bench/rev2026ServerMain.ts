/**
 * Section 8's (`rev2026`) 2026-07-28 server (rev2026Server.ts, no Tasks extension) as a child process: over stdio
 * (`serveStdio`, 2026-07-28 only), or with `--http` over stateless Streamable HTTP
 * (`createMcpHandler`) on a free loopback port, announced on stderr as `listening on <url>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createBench2026Server } from './rev2026Server.js';

if (process.argv.includes('--http')) {
  const handler = createMcpHandler(() => createBench2026Server(), { legacy: 'reject' });
  const http = createServer(toNodeHandler(handler));
  http.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
  });
} else {
  serveStdio(() => createBench2026Server(), { legacy: 'reject' });
}
