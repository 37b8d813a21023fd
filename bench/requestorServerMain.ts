/** Section 2's (`requestor`) server as a child process over stdio (see requestorServer.ts). */
import { main } from './requestorServer.js';

void main();
