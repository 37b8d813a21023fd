/**
 * Section 1's (`receiver`) requestor as a child process over stdio (see receiverServer.ts), started with
 * `--expose-gc` so that it empties its young generation before each block, as the host does.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createReceiverDriver } from './receiverServer.js';

void createReceiverDriver({ minorGcBeforeBlock: true }).connect(new StdioServerTransport());
