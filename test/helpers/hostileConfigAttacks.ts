/**
 * Hostile-configuration attacks: what a workspace's `.vscode/mcp.json` can make the host read before
 * anyone is asked. Run beside the hostile and the good server like every attack (the good server
 * must stay responsive throughout); the hostile server itself plays no part here, so stdio only.
 */
import { performance } from 'node:perf_hooks';
import { hostSides } from '../../src/core/requestor/hostSides.js';
import { parseMcpConfig, type ServerDefinition } from '../../src/core/config/config.js';
import { ConsentStore } from '../../src/core/config/consent.js';
import { DefinitionGate } from '../../src/core/config/gate.js';
import { McpConnection } from '../../src/core/connection/connection.js';
import { MemoryLog, ScriptedResponders, stdioDefinition } from './host.js';
import { check, type AttackSpec } from './hostileRun.js';

const SENTENCE = 'the envFile "/dev/zero" is not read: it is a character device, not a regular file';

export const CONFIG_ATTACK_SPECS: readonly AttackSpec[] = [
  {
    name: 'dev-zero-envfile',
    what: '`/dev/zero` as envFile: three workspace definitions asking for approval at once, and a user server started with it',
    transports: ['stdio'],
    async attack(ctx) {
      const before = process.memoryUsage();
      const t0 = performance.now();
      // The workspace's definitions go through the extension's gate (trusted workspace, firstStart "ask"), with its own bounded reader.
      const source = { kind: 'workspace', file: '/attacker/.vscode/mcp.json', folder: '/attacker' } as const;
      const defs = parseMcpConfig(source, { servers: Object.fromEntries(['a', 'b', 'c'].map((n) => [n, { command: 'node', args: ['server.js'], envFile: '/dev/zero' }])) }).servers;
      let stored: unknown;
      const consents = new ConsentStore({ get: () => stored, set: async (v) => void (stored = v) });
      let questions = 0;
      const gate = new DefinitionGate({ workspaceTrusted: () => true, firstStart: () => 'ask', consents, ask: async (r) => (questions++, r.map(() => true)), pathsFor: () => ({ workspaceFolder: '/attacker' }) });
      ctx.data.verdicts = await Promise.all(defs.map((d: ServerDefinition) => gate.mayConnect(d)));
      ctx.data.gateMs = performance.now() - t0;
      ctx.data.questions = questions;
      gate.dispose();
      consents.dispose();
      // A user server (no gate read): its start reads the envFile, bounded the same way.
      const t1 = performance.now();
      const user = new McpConnection(stdioDefinition('zero', process.execPath, ['-e', ''], { transport: { type: 'stdio', command: process.execPath, args: ['-e', ''], env: {}, envFile: '/dev/zero' } }), {
        sides: hostSides(ctx.env.ledger, new ScriptedResponders()),
        log: new MemoryLog(),
        variables: { env: process.env },
      });
      // The start rejects with its cause (as a Start Server command shows it), and the state keeps it.
      ctx.data.startError = await user.start().then(() => '', (e: Error) => e.message);
      ctx.data.userMs = performance.now() - t1;
      ctx.data.userState = user.state;
      user.dispose();
      const now = process.memoryUsage();
      ctx.data.grewMb = (now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20;
      ctx.end();
    },
    async verify({ data }) {
      const verdicts = data.verdicts as unknown[];
      const state = data.userState as { kind: string; message?: string; retryAt?: number };
      const gateMs = data.gateMs as number;
      const userMs = data.userMs as number;
      const grewMb = data.grewMb as number;
      return {
        outcome: `3 definitions refused in ${gateMs.toFixed(1)} ms, ${String(data.questions)} question(s) ("${String(verdicts[0]).slice(0, 160)}"), the user server's start refused in ${userMs.toFixed(1)} ms; heap and buffers +${grewMb.toFixed(1)} MB`,
        checks: [
          check('each workspace definition is refused with the sentence naming /dev/zero and the cause', verdicts.length === 3 && verdicts.every((v) => typeof v === 'string' && v.startsWith(`${SENTENCE}; `) && v.endsWith('is not started')), verdicts),
          check('nothing is asked (the start could only fail)', data.questions === 0, data.questions),
          check('the three are decided within 1 s', gateMs < 1_000, `${gateMs.toFixed(1)} ms`),
          check("the user server's start fails with the sentence, not retried", state.kind === 'error' && state.retryAt === undefined && !!state.message?.includes(SENTENCE) && String(data.startError).includes(SENTENCE), { state, startError: data.startError }),
          check("the user server's start fails within 1 s", userMs < 1_000, `${userMs.toFixed(1)} ms`),
          check('heap and buffers grow by less than 16 MB (nothing of /dev/zero is read)', grewMb < 16, `${grewMb.toFixed(1)} MB`),
        ],
      };
    },
  },
];
