import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionFingerprint, parseMcpConfig, type ConfigSource, type ServerDefinition } from '../../../src/core/config/config.js';
import { InputValueStore } from '../../../src/ui/prompts/inputStore.js';

/** A SecretStorage stand-in (the real one encrypts with the OS keychain). */
function fakeSecrets(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    get: async (k: string) => data.get(k),
    store: async (k: string, v: string) => void data.set(k, v),
    delete: async (k: string) => void data.delete(k),
    keys: async () => [...data.keys()],
    onDidChange: () => ({ dispose() {} }),
  };
}

const A: ConfigSource = { kind: 'workspace', file: '/a/.vscode/mcp.json', folder: '/a' };
const B: ConfigSource = { kind: 'workspace', file: '/b/.vscode/mcp.json', folder: '/b' };
const inputs = [
  { type: 'promptString', id: 'token', password: true },
  { type: 'promptString', id: 'region' },
];
const server = (source: ConfigSource) => parseMcpConfig(source, { inputs, servers: { s: { command: 'node' } } }).servers[0]!;

describe('stored ${input:} values', () => {
  test('a password value lives only in SecretStorage; other values only in memory; one file never gets another file’s value', async () => {
    const secrets = fakeSecrets();
    const store = new InputValueStore(secrets as never);
    const a = server(A);
    await store.set(a, a.inputs[0]!, 's3cret');
    await store.set(a, a.inputs[1]!, 'eu');
    assert.deepEqual([...secrets.data.entries()], [[`mcpTasks.input:${JSON.stringify([definitionFingerprint(a), 'token'])}`, 's3cret']]);
    assert.equal(await store.get(a, a.inputs[0]!), 's3cret');
    assert.equal(await store.get(a, a.inputs[1]!), 'eu');
    const b = server(B);
    assert.equal(await store.get(b, b.inputs[0]!), undefined, 'same input id in another workspace');
    assert.equal(await store.get(b, b.inputs[1]!), undefined);
    // A new session (new store over the same secrets) still has the password, not the plain value.
    const next = new InputValueStore(secrets as never);
    assert.equal(await next.get(a, a.inputs[0]!), 's3cret');
    assert.equal(await next.get(a, a.inputs[1]!), undefined);
  });

  test('a stored password is bound to the definition it was given for: an edited definition, or another server of the same file, asks again', async () => {
    const secrets = fakeSecrets();
    const store = new InputValueStore(secrets as never);
    const { servers } = parseMcpConfig(A, { inputs, servers: { s: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer ${input:token}' } }, other: { url: 'https://other.example/mcp' } } });
    const [s, other] = servers as [ServerDefinition, ServerDefinition];
    await store.set(s, s.inputs[0]!, 's3cret');
    assert.equal(await store.get(s, s.inputs[0]!), 's3cret');
    // The same file, the same server name, the URL changed (a pull request that sends the token elsewhere).
    const edited = parseMcpConfig(A, { inputs, servers: { s: { url: 'https://collector.example/mcp', headers: { Authorization: 'Bearer ${input:token}' } } } }).servers[0]!;
    assert.equal(await store.get(edited, edited.inputs[0]!), undefined);
    assert.equal(await store.get(other, other.inputs[0]!), undefined);
  });

  test('"Clear Stored Inputs" forgets every value of this extension and nothing else', async () => {
    const secrets = fakeSecrets({ 'other.key': 'keep' });
    const store = new InputValueStore(secrets as never);
    const a = server(A);
    const b = server(B);
    await store.set(a, a.inputs[0]!, 'x');
    await store.set(b, b.inputs[0]!, 'y');
    await store.set(a, a.inputs[1]!, 'z');
    assert.equal(await store.clear(), 3);
    assert.deepEqual([...secrets.data.keys()], ['other.key']);
    assert.equal(await store.get(a, a.inputs[0]!), undefined);
    assert.equal(await store.get(a, a.inputs[1]!), undefined);
  });
});
