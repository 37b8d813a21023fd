/**
 * Secrets never reach a log, at any level. Known secret
 * values (input values, env values of secret-looking names, credential headers) are replaced
 * wherever and however they appear; credential-looking parts are replaced even when unknown.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveTransportWithSecrets, type ServerDefinition } from '../../../src/core/config/config.js';
import {
  describeCommandLine,
  describeEnv,
  describeHeaders,
  headerSecrets,
  isSecretName,
  REDACTED,
  RedactingLog,
  redactingLog,
  redactPatterns,
  Redactor,
} from '../../../src/core/base/redact.js';
import { MemoryLog } from '../../helpers/host.js';

const SECRET = 'hunter2-S3cr3t/"quoted"\\back+slash';

describe('isSecretName', () => {
  test('secret-looking names, case-insensitive, as substrings or words', () => {
    for (const n of ['API_TOKEN', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'token', 'client_secret', 'DB_PASSWORD', 'passwd', 'DB_PASS', 'apiKey', 'api-key', 'X-Api-Key', 'OPENAI_API_KEY', 'KEY', 'Authorization', 'Proxy-Authorization', 'cookie', 'AUTH', 'x-auth', 'oauthToken', 'CREDENTIALS', 'aws_secret_access_key', '--token', '--password', 'private_key', 'passphrase']) {
      assert.ok(isSecretName(n), n);
    }
  });

  test('ordinary names are not (protocol counts and ids, directories, look-alikes)', () => {
    for (const n of ['progressToken', 'maxTokens', 'max_tokens', 'inputTokens', 'PWD', 'OLDPWD', 'PATH', 'HOME', 'KEYBOARD_LAYOUT', 'author', 'authority', 'monkey', 'taskId', 'cursor', 'nextCursor', 'DEBUG', 'passport_no'.replace('passport_no', 'bypassing'), 'SSH_AUTH_SOCK']) {
      assert.ok(!isSecretName(n), n);
    }
  });
});

describe('Redactor: known secret values', () => {
  test('replaced as they are, JSON-escaped, URL-encoded and JSON-in-JSON', () => {
    const r = new Redactor();
    r.add([SECRET]);
    const forms = [SECRET, JSON.stringify(SECRET), encodeURIComponent(SECRET), JSON.stringify(JSON.stringify({ a: SECRET }))];
    for (const f of forms) {
      const out = r.redactText(`before ${f} after`);
      assert.ok(!out.includes('hunter2'), `${f} → ${out}`);
      assert.ok(out.includes(REDACTED), out);
    }
  });

  test('longest first, so a secret containing another is hidden whole', () => {
    const r = new Redactor();
    r.add(['abcd', 'abcdefgh']);
    assert.equal(r.redactText('x abcdefgh y abcd'), `x ${REDACTED} y ${REDACTED}`);
  });

  test('short and blank values are not substituted (they would blank ordinary words)', () => {
    const r = new Redactor();
    r.add(['abc', '    ', '', undefined, null]);
    assert.equal(r.size, 0);
    assert.equal(r.redactText('abc'), 'abc');
  });

  test('JSON values: strings scrubbed, keys too, fields named like secrets hidden whatever their value', () => {
    const r = new Redactor();
    r.add([SECRET]);
    const value = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: `echo ${SECRET}` }],
        [SECRET]: 1,
        password: 'typed-by-the-user',
        apiKey: 12345678,
        nested: { Authorization: 'Bearer abcdefghijkl' },
        progressToken: 'p-1',
        maxTokens: 100,
      },
    };
    const out = JSON.stringify(r.redactValue(value));
    for (const leaked of ['hunter2', 'typed-by-the-user', '12345678', 'abcdefghijkl']) assert.ok(!out.includes(leaked), `${leaked} in ${out}`);
    assert.ok(out.includes('"progressToken":"p-1"') && out.includes('"maxTokens":100'), out);
    // The original is not changed.
    assert.equal(value.result.password, 'typed-by-the-user');
  });

  test('under a field named like a secret every string and number is hidden, however deep; what nests past 64 levels is not copied', () => {
    const r = new Redactor();
    const value = { token: { value: 'tok-under-a-name', list: ['tok-in-a-list', 42424242], on: true }, apiKeys: ['key-one-1234'], q: 'visible' };
    assert.deepEqual(r.redactValue(value), { token: { value: REDACTED, list: [REDACTED, REDACTED], on: true }, apiKeys: [REDACTED], q: 'visible' });
    let deep: unknown = { password: 'deep-down-secret' };
    for (let i = 0; i < 80; i++) deep = [deep];
    assert.ok(!JSON.stringify(r.redactValue(deep)).includes('deep-down-secret'));
  });
});

describe('redactPatterns: credentials whose value is not known', () => {
  const cases: Array<[string, string]> = [
    ['Authorization: Bearer eyJhbGciOi.payload.sig', 'eyJhbGciOi'],
    ['proxy-authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpw'],
    ['Cookie: session=abc123def; theme=dark', 'abc123def'],
    ['X-Api-Key: k-1234567890', 'k-1234567890'],
    ['{"headers":{"authorization":"Bearer tok-1234567890"}}', 'tok-1234567890'],
    ['{"password": "p@ss w0rd"}', 'p@ss w0rd'],
    ['failed: got bearer abcdefgh12345 from proxy', 'abcdefgh12345'],
    ['GET https://user:pa55word@example.com/x', 'pa55word'],
    ['GET https://example.com/x?api_key=qwertyuiop&page=2', 'qwertyuiop'],
    ['node server.js --token=zxcvbnm123', 'zxcvbnm123'],
    ['API_TOKEN=plain-env-value-9 DEBUG=1', 'plain-env-value-9'],
    ['client_secret: s3cr3tvalue', 's3cr3tvalue'],
    // Known by their shape alone, whatever names them.
    ['note: ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_abcdefghij'],
    ['use github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'github_pat_11ABC'],
    ['key sk-proj-abcdefghijklmnop1234 here', 'sk-proj-abcdefgh'],
    ['slack xoxb-1234567890-abcdefghij', 'xoxb-1234567890'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig-part', 'eyJzdWIiOiIxMjM0In0'],
  ];
  for (const [input, secret] of cases) {
    test(input, () => {
      const out = redactPatterns(input);
      assert.ok(!out.includes(secret), out);
      assert.ok(out.includes(REDACTED), out);
    });
  }

  test('the shortest texts each pattern takes are still scrubbed (short words without a separator are skipped)', () => {
    // 14 characters with no ':' or '=': the shortest a pattern matches without a separator.
    for (const [input, secret] of [
      ['basic 12345678', '12345678'],
      ['xoxb-123456789', undefined],
      ['xoxb-1234567890', 'xoxb-1234567890'],
      ['a=b', undefined],
      ['token=x', 'x'],
      ['pw:x', undefined],
      ['key: v', 'v'],
    ] as Array<[string, string | undefined]>) {
      const out = redactPatterns(input);
      if (secret === undefined) assert.equal(out, input);
      else assert.ok(out.includes(REDACTED) && !out.endsWith(secret), `${input} → ${out}`);
    }
  });

  test('ordinary text is left alone', () => {
    for (const s of ['connected: probe 1.0.0 (stdio)', 'error: connection refused', '{"progressToken":"abc","maxTokens":5}', 'DEBUG=1 PORT=3000', 'https://example.com/mcp?page=2', 'task-abcdefghijklmnopqrstuvwxyz', 'risk-assessment-for-the-quarter', 'sk-short']) {
      assert.equal(redactPatterns(s), s);
    }
  });
});

describe('describing a launch for the log', () => {
  test('command line: secret flags hidden with = or as the next argument', () => {
    assert.equal(
      describeCommandLine('node', ['server.js', '--token=abc123xyz', '--port', '3000', '--password', 'p4ssw0rd!', '--api-key', '--verbose', 'with space']),
      `node server.js --token=${REDACTED} --port 3000 --password ${REDACTED} --api-key --verbose "with space"`,
    );
  });

  test('env and headers: values of secret-looking names hidden', () => {
    assert.equal(describeEnv({ API_TOKEN: 'x1234567', DEBUG: '1', GONE: null }), `API_TOKEN=${REDACTED}, DEBUG=1, GONE unset`);
    assert.equal(describeHeaders({ Authorization: 'Bearer abc', 'X-Trace': 'on', Cookie: 'a=b' }), `Authorization=${REDACTED}, X-Trace=on, Cookie=${REDACTED}`);
    assert.deepEqual(headerSecrets('Bearer abcdef'), ['Bearer abcdef', 'abcdef']);
    assert.deepEqual(headerSecrets('plain'), ['plain']);
  });
});

describe('resolveTransportWithSecrets: the secrets that went into a transport', () => {
  const source = { kind: 'user' as const, file: 'settings' };
  test('stdio: input values, ${env:SECRET_NAME} values and secret-named env entries', async () => {
    const def: ServerDefinition = {
      id: 's',
      name: 's',
      source,
      transport: { type: 'stdio', command: 'node', args: ['--token=${input:tok}', '--home=${env:HOME_DIR}', '${env:MY_API_KEY}'], env: { SERVICE_PASSWORD: 'literal-pw-1', DEBUG: 'debug-value' } },
      inputs: [{ type: 'promptString', id: 'tok', password: true }],
    };
    const { transport, secrets } = await resolveTransportWithSecrets(def, { env: { HOME_DIR: '/home/u', MY_API_KEY: 'env-key-123' }, input: async () => 'typed-input-1' });
    assert.equal(transport.type, 'stdio');
    assert.deepEqual([...secrets].sort(), ['env-key-123', 'literal-pw-1', 'typed-input-1']);
  });

  test('http: credential headers and their bearer tokens, inputs in the URL', async () => {
    const def: ServerDefinition = {
      id: 'h',
      name: 'h',
      source,
      transport: { type: 'http', url: 'https://x/mcp?k=${input:k}', headers: { Authorization: 'Bearer ${env:GH_TOKEN}', 'X-Trace': 'on' } },
      inputs: [{ type: 'promptString', id: 'k' }],
    };
    const { secrets } = await resolveTransportWithSecrets(def, { env: { GH_TOKEN: 'ghp_abcdef' }, input: async () => 'url-input-1' });
    assert.deepEqual([...new Set(secrets)].sort(), ['Bearer ghp_abcdef', 'ghp_abcdef', 'url-input-1']);
  });
});

describe('RedactingLog', () => {
  test('every level is redacted, and trace JSON is redacted before it is cut (no half secret left)', () => {
    const mem = new MemoryLog();
    const log = new RedactingLog(mem);
    log.redactor.add([SECRET]);
    log.trace(`t ${SECRET}`);
    log.debug(`d ${SECRET}`);
    log.info(`i Authorization: Bearer abcdefghijk`);
    log.warn(`w ${encodeURIComponent(SECRET)}`);
    log.error(`e ${JSON.stringify({ password: 'pw-123456' })}`);
    // The secret straddles the cut: 3990 characters of padding, then the secret.
    log.traceJson('▶ ', { pad: 'x'.repeat(3990), s: SECRET }, 4000);
    assert.equal(mem.lines.length, 6);
    for (const l of mem.lines) {
      for (const leaked of ['hunter2', 'S3cr3t', 'abcdefghijk', 'pw-123456']) assert.ok(!l.includes(leaked), l.slice(-200));
    }
    assert.match(mem.lines[5]!, /… \(\d+ chars\)$/);
  });

  test('a huge string is cut before it is scanned, with no secret left at the cut', () => {
    const mem = new MemoryLog();
    const log = new RedactingLog(mem);
    log.redactor.add([SECRET]);
    const huge = `${'y'.repeat(3995)}${SECRET}${'z'.repeat(20_000_000)}`;
    log.traceJson('◀ ', { result: { text: huge } }, 4000);
    assert.equal(mem.lines.length, 1);
    assert.ok(mem.lines[0]!.length < 4200, `cut: ${mem.lines[0]!.length} chars`);
    assert.ok(!mem.lines[0]!.includes('hunter2') && !mem.lines[0]!.includes('hunt'), mem.lines[0]!.slice(-120));
  });

  test('redactingLog wraps once: the UI and the connection share one redactor per server', () => {
    const inner = new RedactingLog(new MemoryLog());
    assert.equal(redactingLog(inner), inner);
    const wrapped = redactingLog(new MemoryLog());
    assert.ok(wrapped instanceof RedactingLog);
  });
});
