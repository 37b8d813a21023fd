/** Row 1's requestor as a child process over stdio (see receiverServer.ts). */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createReceiverDriver } from './receiverServer.js';

void createReceiverDriver().connect(new StdioServerTransport());
