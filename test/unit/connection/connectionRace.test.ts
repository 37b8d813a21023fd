/** A connection stopped while its start is under way (connection/connection.ts, attempt.ts): nothing is left connected. */
import assert from 'node:assert/strict';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { describe, it } from 'node:test';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { ScriptedResponders, stdioDefinition } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

describe('McpConnection: a stop while a start is under way', () => {
  checkLeaks();

  it('while the transport is being made: it is closed once made, nothing stays connected to the server', async () => {
    const ledger = new TaskLedger();
    const server = new Server({ name: 'fake', version: '1.0.0' }, { capabilities: {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    let serverClosed = false;
    server.onclose = () => (serverClosed = true);
    let made!: (t: InMemoryTransport) => void;
    let asked!: () => void;
    const factoryAsked = new Promise<void>((r) => (asked = r));
    const connection = new McpConnection(stdioDefinition('fake', 'unused', []), {
      sides: hostSides(ledger, new ScriptedResponders()),
      variables: { env: {}, workspaceFolder: '/' },
      transportFactory: () => (asked(), new Promise((r) => (made = r))),
    });
    const started = connection.start().catch((e: unknown) => e);
    await factoryAsked;
    await connection.stop();
    made(clientSide);
    await started;
    assert.equal(connection.state.kind, 'stopped');
    assert.equal(serverClosed, true, 'the transport made after the stop is closed');
    connection.dispose();
    ledger.dispose();
    await server.close();
  });

  it('an answer to an ${input:…} question that comes after a stop starts nothing', async () => {
    const ledger = new TaskLedger();
    let answer!: (v: string) => void;
    let asked!: () => void;
    const questionAsked = new Promise<void>((r) => (asked = r));
    let transports = 0;
    const def = stdioDefinition('fake', 'unused', ['${input:tok}'], { inputs: [{ id: 'tok', type: 'promptString', description: 'token', password: true }] });
    const connection = new McpConnection(def, {
      sides: hostSides(ledger, new ScriptedResponders()),
      variables: { env: {}, workspaceFolder: '/', input: () => (asked(), new Promise((r) => (answer = r))) },
      transportFactory: () => (transports++, InMemoryTransport.createLinkedPair()[0]),
    });
    const started = connection.start().catch((e: unknown) => e);
    await questionAsked;
    await connection.stop();
    answer('secret');
    await started;
    assert.equal(transports, 0, 'no transport was made for the stopped server');
    assert.equal(connection.state.kind, 'stopped');
    connection.dispose();
    ledger.dispose();
  });
});
