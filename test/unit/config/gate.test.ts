/**
 * The gate every connect passes (src/core/config/gate.ts), with the consent store and an "ask"
 * standing in for the modal dialog: the approval is bound to the envFile's contents, a revoked
 * approval no longer lets a server stay, and one question is asked per definition at a time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpConfig, type ConfigSource, type ServerDefinition } from '../../../src/core/config/config.js';
import { ConsentStore } from '../../../src/core/config/consent.js';
import { DefinitionGate, withApprovedEnvFile } from '../../../src/core/config/gate.js';
import type { LaunchSummary } from '../../../src/core/config/trust.js';
import { checkLeaks } from '../../helpers/leaks.js';

const WS: ConfigSource = { kind: 'workspace', file: '/repo/.vscode/mcp.json', folder: '/repo' };
const USER: ConfigSource = { kind: 'user', file: 'Settings (mcpTasks.servers)' };

function def(source: ConfigSource, name: string, server: Record<string, unknown>): ServerDefinition {
  const { servers, problems } = parseMcpConfig(source, { servers: { [name]: server } });
  assert.deepEqual(problems, []);
  return servers[0]!;
}

function setUp(options: { trusted?: boolean; answer?: boolean; ask?: () => Promise<boolean> } = {}) {
  let stored: unknown;
  const consents = new ConsentStore({ get: () => stored, set: async (v) => void (stored = v) });
  const files = new Map<string, string>();
  const questions: LaunchSummary[] = [];
  const asks: string[][] = [];
  const answer = options.answer ?? true;
  let untrusted = 0;
  const gate = new DefinitionGate({
    workspaceTrusted: () => options.trusted ?? true,
    firstStart: () => 'ask',
    consents,
    // One question may ask about several definitions (answered here alike); `asks` counts questions.
    ask: async (requests) => {
      asks.push(requests.map((r) => r.def.name));
      questions.push(...requests.map((r) => r.launch));
      const yes = options.ask ? await options.ask() : answer;
      return requests.map(() => yes);
    },
    pathsFor: () => ({ workspaceFolder: '/repo', userHome: '/home/me' }),
    readText: async (path) => {
      const text = files.get(path);
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
    onUntrusted: () => untrusted++,
  });
  const dispose = () => {
    gate.dispose();
    consents.dispose();
  };
  return { gate, consents, files, questions, asks, untrusted: () => untrusted, dispose };
}

describe('the gate every connect passes', () => {
  checkLeaks();

  test('an approval is bound to the envFile as it was: a later edit that adds NODE_OPTIONS asks again, showing it', async () => {
    const { gate, files, questions, dispose } = setUp();
    const d = def(WS, 's', { command: 'node', args: ['s.js'], envFile: '${workspaceFolder}/.env' });
    files.set('/repo/.env', 'LEVEL=1\n');
    const approved = { envFile: { path: '/repo/.env', text: 'LEVEL=1\n' } };
    assert.deepEqual(await gate.mayConnect(d), approved, 'a pass, with the contents the start is to use');
    assert.equal(questions.length, 1);
    assert.ok(questions[0]!.details.includes('set by the environment file: LEVEL="1"'), questions[0]!.details.join(' | '));
    assert.deepEqual(await gate.mayConnect(d), approved);
    assert.equal(questions.length, 1, 'the same contents: approved, not asked again');

    files.set('/repo/.env', 'LEVEL=1\nNODE_OPTIONS=--require ./evil.js\n'); // a git pull
    assert.deepEqual(await gate.mayConnect(d), { envFile: { path: '/repo/.env', text: 'LEVEL=1\nNODE_OPTIONS=--require ./evil.js\n' } });
    assert.equal(questions.length, 2, 'asked again');
    assert.ok(questions[1]!.details.includes('set by the environment file, which changes the code that runs: NODE_OPTIONS="--require ./evil.js"'), questions[1]!.details.join(' | '));
    dispose();
  });

  test('the envFile changed while the question was open: the pass carries the contents the user saw, and the start uses them', async () => {
    let answer!: (yes: boolean) => void;
    let asked!: () => void;
    const questionOpen = new Promise<void>((r) => (asked = r));
    const { gate, files, questions, dispose } = setUp({ ask: () => (asked(), new Promise<boolean>((r) => (answer = r))) });
    const d = def(WS, 's', { command: 'node', envFile: '${workspaceFolder}/.env' });
    files.set('/repo/.env', 'LEVEL=1\n');
    const verdict = gate.mayConnect(d);
    await questionOpen;
    files.set('/repo/.env', 'NODE_OPTIONS=--require ./evil.js\n'); // swapped while the user reads the question
    answer(true);
    const pass = await verdict;
    assert.deepEqual(pass, { envFile: { path: '/repo/.env', text: 'LEVEL=1\n' } });
    assert.ok(questions[0]!.details.includes('set by the environment file: LEVEL="1"'), 'the question showed what the pass carries');
    const resolved = { type: 'stdio', command: 'node', args: [], env: {}, envFile: '/repo/.env' } as const;
    assert.deepEqual(withApprovedEnvFile(resolved, pass), { ...resolved, envFileText: 'LEVEL=1\n' });
    const elsewhere = { ...resolved, envFile: '/elsewhere/.env' };
    assert.deepEqual(withApprovedEnvFile(elsewhere, pass), elsewhere, 'another file (a path resolved from an input) is read at the start');
    assert.deepEqual(withApprovedEnvFile(resolved, true), resolved);
    dispose();
  });

  test('declined: the reason is the verdict, nothing is remembered', async () => {
    const { gate, consents, dispose } = setUp({ answer: false });
    const verdict = await gate.mayConnect(def(WS, 's', { command: 'node' }));
    assert.match(String(verdict), /you did not approve starting "s"/);
    assert.deepEqual(consents.list(), []);
    dispose();
  });

  test('a revoked approval no longer lets the server stay (the registry then stops it); an open question does', async () => {
    const { gate, consents, dispose } = setUp();
    const d = def(WS, 's', { command: 'node' });
    let changes = 0;
    gate.onDidChange(() => changes++);
    assert.equal(await gate.mayConnect(d), true);
    assert.equal(await gate.mayStay(d), true);
    const before = changes;
    await consents.revoke(consents.list('firstStart'));
    assert.ok(changes > before, 'a revoke is a change of the gate');
    assert.match(String(await gate.mayStay(d)), /approval to start "s" .* was revoked/);

    // A restart waiting for the user's answer is not stopped by the check: the answer decides.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const questionOpen = new Promise<void>((r) => (asked = r));
    const slow = new DefinitionGate({
      workspaceTrusted: () => true,
      firstStart: () => 'ask',
      consents,
      ask: async (requests) => (asked(), await held, requests.map(() => true)),
      pathsFor: () => ({}),
      readText: async () => '',
    });
    const asking = slow.mayConnect(d);
    await questionOpen;
    assert.equal(await slow.mayStay(d), true);
    release();
    assert.equal(await asking, true);
    slow.dispose();
    dispose();
  });

  test('untrusted: workspace servers and user servers that use the folder are blocked without reading anything', async () => {
    const { gate, files, untrusted, dispose } = setUp({ trusted: false });
    files.set('/repo/.env', 'A=1');
    const reads: string[] = [];
    const spyConsents = new ConsentStore({ get: () => undefined, set: async () => undefined });
    const spy = new DefinitionGate({
      workspaceTrusted: () => false,
      firstStart: () => 'allow',
      consents: spyConsents,
      ask: async (requests) => requests.map(() => true),
      pathsFor: () => ({ workspaceFolder: '/repo' }),
      readText: async (p) => (reads.push(p), ''),
    });
    for (const g of [gate, spy]) {
      assert.match(String(await g.mayConnect(def(WS, 's', { command: 'node', envFile: '${workspaceFolder}/.env' }))), /not trusted/);
      assert.match(String(await g.mayConnect(def(USER, 'u', { command: 'python3', env: { PYTHONPATH: '${workspaceFolder}' } }))), /not trusted/);
      assert.equal(await g.mayConnect(def(USER, 'plain', { command: 'python3' })), true);
    }
    assert.deepEqual(reads, []);
    assert.equal(untrusted(), 2);
    spy.dispose();
    spyConsents.dispose();
    dispose();
  });

  test('two connects of one definition share one question', async () => {
    const { gate, questions, dispose } = setUp();
    const d = def(WS, 's', { command: 'node' });
    const [a, b] = await Promise.all([gate.mayConnect(d), gate.mayConnect(d)]);
    assert.deepEqual([a, b], [true, true]);
    assert.equal(questions.length, 1);
    dispose();
  });

  test('definitions due together are asked about in one question, answered and remembered per definition', async () => {
    let stored: unknown;
    const consents = new ConsentStore({ get: () => stored, set: async (v) => void (stored = v) });
    const questions: string[][] = [];
    let release!: () => void;
    const firstAnswered = new Promise<void>((r) => (release = r));
    const gate = new DefinitionGate({
      workspaceTrusted: () => true,
      firstStart: () => 'ask',
      consents,
      // "b" declined, the others approved; the first question is held until released.
      ask: async (requests) => {
        questions.push(requests.map((r) => r.def.name));
        if (questions.length === 1) await firstAnswered;
        return requests.map((r) => r.def.name !== 'b');
      },
      pathsFor: () => ({ workspaceFolder: '/repo' }),
      readText: async () => 'LEVEL=1\n',
    });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => def(WS, n, n === 'c' ? { command: 'node', envFile: '.env' } : { command: 'node', args: [n] }));
    // As the registry starts them: each a few awaits apart, one reading its envFile first.
    const verdicts = [a, b, c].map(async (x, i) => {
      for (let k = 0; k < i * 3; k++) await Promise.resolve();
      return gate.mayConnect(x!);
    });
    const turn = () => new Promise((r) => setImmediate(r));
    while (questions.length === 0) await turn();
    // Asked for while the question is open: the next question, not a modal on top of it.
    const later = Promise.all([gate.mayConnect(d!), gate.mayConnect(a!)]);
    for (let k = 0; k < 5; k++) await turn();
    assert.equal(questions.length, 1, 'no second question while the first is open');
    release();
    const [laterD, laterA] = await later;
    const [va, vb, vc] = await Promise.all(verdicts);
    assert.equal(laterA, true);
    assert.deepEqual(questions, [['a', 'b', 'c'], ['d']], 'one question for the three, then one for the one that came later; "a" asked for again shares its answer');
    assert.equal(va, true);
    assert.match(String(vb), /you did not approve starting "b"/);
    assert.deepEqual(vc, { envFile: { path: '/repo/.env', text: 'LEVEL=1\n' } }, 'a relative envFile is read from the workspace folder, and the pass carries it');
    assert.equal(laterD, true);
    assert.deepEqual(consents.list('firstStart').map((r) => r.serverName).sort(), ['a', 'c', 'd'], 'each approval remembered under its own definition');
    assert.equal(await gate.mayConnect(a!), true);
    assert.match(String(await gate.mayStay(b!)), /revoked or no longer matches/);
    assert.equal(questions.length, 2);
    gate.dispose();
    consents.dispose();
  });
});
