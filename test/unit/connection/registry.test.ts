/** The configured servers (connection/registry.ts): connections follow the definitions, and end with the registry. */
import assert from 'node:assert/strict';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { describe, it } from 'node:test';
import { ServerRegistry, statesOf, type ConnectionStateChange } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { MemoryLog, ScriptedResponders, stdioDefinition, testGate } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const REQ = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };

function setUp(gate?: ReturnType<typeof testGate>) {
  const ledger = new TaskLedger();
  const registry = new ServerRegistry({
    sides: hostSides(ledger, new ScriptedResponders()),
    logFor: () => new MemoryLog(),
    variablesFor: () => ({ env: {}, workspaceFolder: '/' }),
    gate: gate?.gate,
    autoStart: false,
  });
  const dispose = () => {
    registry.dispose();
    ledger.dispose();
    gate?.dispose();
  };
  return { ledger, registry, dispose };
}

describe('ServerRegistry', () => {
  checkLeaks();

  it('keeps an unchanged server, replaces a changed one and ends a removed one with its received tasks', async () => {
    const { ledger, registry, dispose } = setUp();
    let changes = 0;
    registry.onDidChangeConnections(() => changes++);
    await registry.setDefinitions([stdioDefinition('a', 'node', []), stdioDefinition('b', 'node', [])]);
    assert.deepEqual(
      registry.connections.map((c) => c.id),
      ['a', 'b'],
    );
    assert.equal(changes, 1);
    const [a, b] = registry.connections;
    await ledger.forServer('b', 'b').createTask({}, 1, REQ);

    await registry.setDefinitions([stdioDefinition('a', 'node', []), stdioDefinition('b', 'node', ['--changed'])]);
    assert.equal(registry.get('a'), a, 'unchanged: the same connection');
    assert.notEqual(registry.get('b'), b, 'changed: a new connection');
    await assert.rejects(b!.start(), /disposed/);
    assert.equal(ledger.tasksOf('b')?.snapshot().length, 1, 'the server is still configured: its received tasks stay');

    await registry.setDefinitions([stdioDefinition('a', 'node', [])]);
    assert.equal(ledger.tasksOf('b'), undefined, 'removed: its received tasks are forgotten');
    assert.equal(changes, 3);
    dispose();
    await assert.rejects(a!.start(), /disposed/, 'disposing the registry disposes its connections');
  });

  it('a server the gate refuses is blocked with its reason, heard as a state change of that connection', async () => {
    const gate = testGate((def) => (def.id === 'no' ? 'not approved' : true));
    const { registry, dispose } = setUp(gate);
    const heard: ConnectionStateChange[] = [];
    registry.onDidChangeState((e) => heard.push(e));
    await registry.setDefinitions([stdioDefinition('no', 'node', [])]);
    await registry.start('no');
    assert.deepEqual(gate.asked, ['no']);
    assert.deepEqual(registry.get('no')!.state, { kind: 'blocked', reason: 'not approved' });
    assert.deepEqual(
      heard.map((e) => [e.connection.id, e.state.kind]),
      [['no', 'blocked']],
    );
    dispose();
  });

  it('statesOf: the state changes of a few connections as one event, until disposed', async () => {
    const gate = testGate(() => 'never');
    const { registry, dispose } = setUp(gate);
    await registry.setDefinitions([stdioDefinition('x', 'node', [])]);
    const states = statesOf(registry.connections);
    const heard: string[] = [];
    states.onDidChangeState((e) => heard.push(`${e.connection.id} ${e.state.kind}`));
    await registry.start('x');
    states.dispose();
    await registry.get('x')!.block('again');
    assert.deepEqual(heard, ['x blocked']);
    dispose();
  });
});
