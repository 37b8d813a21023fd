/**
 * Client credentials from mcp.json: the `"oauth"` block of an http/sse server is
 * validated (bad shapes name the file and key), its `${input:…}` values are resolved like
 * headers, and the secret joins the values the log's redactor hides.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionFingerprint, formatProblem, parseMcpConfig, resolveTransportWithSecrets, type ConfigSource } from '../../../src/core/config/config.js';

const SRC: ConfigSource = { kind: 'workspace', file: '/ws/.vscode/mcp.json', folder: '/ws' };

const ISSUER = 'https://auth.example.com/';

function parse(oauth: unknown, extra: Record<string, unknown> = {}) {
  const block = typeof oauth === 'object' && oauth !== null && !('issuer' in oauth) ? { issuer: ISSUER, ...oauth } : oauth;
  return parseMcpConfig(SRC, { servers: { remote: { type: 'http', url: 'http://127.0.0.1:1/mcp', oauth: block, ...extra } } });
}

describe('mcp.json "oauth" block (client credentials)', () => {
  test('clientCredentials with a scope, as text with ${input:…}', () => {
    const text = `{
      "inputs": [{ "type": "promptString", "id": "secret", "password": true }],
      "servers": {
        "remote": { "url": "http://127.0.0.1:3000/mcp", "oauth": { "issuer": "https://auth.example.com", "clientCredentials": { "clientId": "ci", "clientSecret": "\${input:secret}" }, "scope": "mcp:tools" } },
      },
    }`;
    const { servers, problems } = parseMcpConfig(SRC, text);
    assert.deepEqual(problems, []);
    assert.deepEqual(servers[0]!.transport, { type: 'http', url: 'http://127.0.0.1:3000/mcp', headers: {}, oauth: { clientId: 'ci', clientSecret: '${input:secret}', issuer: 'https://auth.example.com', scope: 'mcp:tools' } });
  });

  test('privateKeyJwt, on an sse server too', () => {
    const { servers, problems } = parse({ privateKeyJwt: { clientId: 'ci', privateKey: '${input:key}', algorithm: 'ES256' } }, { type: 'sse' });
    assert.deepEqual(problems, []);
    assert.deepEqual(servers[0]!.transport, { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {}, legacySse: true, oauth: { clientId: 'ci', privateKey: '${input:key}', algorithm: 'ES256', issuer: ISSUER } });
  });

  test('no "oauth": no oauth field (the authorization code sign-in)', () => {
    const { servers } = parseMcpConfig(SRC, { servers: { remote: { url: 'http://h/mcp' } } });
    assert.equal('oauth' in servers[0]!.transport, false);
  });

  const bad: Array<[string, unknown, string, RegExp]> = [
    ['neither', { scope: 'x' }, 'servers.remote.oauth', /exactly one of "clientCredentials" or "privateKeyJwt"/],
    ['both', { clientCredentials: { clientId: 'a', clientSecret: 'b' }, privateKeyJwt: { clientId: 'a', privateKey: 'k', algorithm: 'RS256' } }, 'servers.remote.oauth', /exactly one/],
    ['no secret', { clientCredentials: { clientId: 'a' } }, 'servers.remote.oauth.clientCredentials.clientSecret', /./],
    ['empty id', { clientCredentials: { clientId: '', clientSecret: 's' } }, 'servers.remote.oauth.clientCredentials.clientId', /non-empty/],
    ['unknown algorithm', { privateKeyJwt: { clientId: 'a', privateKey: 'k', algorithm: 'HS256' } }, 'servers.remote.oauth.privateKeyJwt.algorithm', /./],
    ['unknown key', { clientCredentials: { clientId: 'a', clientSecret: 's' }, audience: 'x' }, 'servers.remote.oauth', /audience/],
    ['not an object', 'yes', 'servers.remote.oauth', /./],
    ['no issuer (the MCP server would choose where the secret goes)', { issuer: undefined, clientCredentials: { clientId: 'a', clientSecret: 's' } }, 'servers.remote.oauth.issuer', /authorization server/],
    ['an issuer that is not an http(s) URL', { issuer: 'file:///etc', clientCredentials: { clientId: 'a', clientSecret: 's' } }, 'servers.remote.oauth.issuer', /http\(s\) URL/],
  ];
  for (const [name, oauth, key, message] of bad) {
    test(`a bad block is a problem naming the file and key: ${name}`, () => {
      const { servers, problems } = parse(oauth);
      assert.equal(servers.length, 0);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]!.key, key);
      assert.match(problems[0]!.message, message);
      assert.match(formatProblem(problems[0]!), /^\/ws\/\.vscode\/mcp\.json: "servers\.remote\.oauth/);
    });
  }

  test('${input:…} values are resolved like headers; the secret is one of the values to redact', async () => {
    const { servers } = parseMcpConfig(SRC, {
      inputs: [{ type: 'promptString', id: 'secret', password: true }],
      servers: { remote: { url: 'http://h/mcp', oauth: { issuer: ISSUER, clientCredentials: { clientId: 'client-${env:CI_SUFFIX}', clientSecret: '${input:secret}' }, scope: 'a b' } } },
    });
    const asked: string[] = [];
    const { transport, secrets } = await resolveTransportWithSecrets(servers[0]!, {
      env: { CI_SUFFIX: 'x' },
      input: async (i) => (asked.push(i.id), 'the-client-secret-value'),
    });
    assert.deepEqual(asked, ['secret']);
    assert.equal(transport.type === 'http' && transport.oauth && 'clientSecret' in transport.oauth ? transport.oauth.clientSecret : undefined, 'the-client-secret-value');
    assert.equal(transport.type === 'http' ? transport.oauth?.clientId : undefined, 'client-x');
    assert.ok(secrets.includes('the-client-secret-value'));
    assert.ok(!secrets.includes('client-x'), 'the client id is not a secret');
  });

  test('a secret written literally in mcp.json is still redacted; a private key too', async () => {
    const literal = parse({ clientCredentials: { clientId: 'a', clientSecret: 'literal-secret-123' } }).servers[0]!;
    assert.ok((await resolveTransportWithSecrets(literal, { env: {} })).secrets.includes('literal-secret-123'));
    const pem = '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----';
    const jwt = parse({ privateKeyJwt: { clientId: 'a', privateKey: pem, algorithm: 'ES256' } }).servers[0]!;
    assert.ok((await resolveTransportWithSecrets(jwt, { env: {} })).secrets.includes(pem));
  });

  test('the block is part of the fingerprint: changing it asks for approval again', () => {
    const a = parse({ clientCredentials: { clientId: 'a', clientSecret: 's' } }).servers[0]!;
    const b = parse({ clientCredentials: { clientId: 'b', clientSecret: 's' } }).servers[0]!;
    assert.notEqual(definitionFingerprint(a), definitionFingerprint(b));
  });
});
