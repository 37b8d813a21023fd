/**
 * Hostile-server attack on what a pattern may cost (SECURITY.md, Bounds): a tool whose input
 * schema carries a 1 MB pattern and a 902-character one that RE2 would expand to 137,935
 * instructions, each with a 3,000-character default. Before, Run Tool… checked the 902-character
 * pattern against the default as the field opened and blocked the extension host for 31–41 s.
 * Pass: the form is built at once, both patterns are reported not enforced here, each field's hint
 * says the server checks it, and the defaults are left to the server.
 */
import { performance } from 'node:perf_hooks';
import { describeField, parseForm, validateField } from '../../src/core/forms/elicitationForm.js';
import { patternCheck } from '../../src/core/forms/patterns.js';
import { check, stateText, type AttackSpec } from './hostileRun.js';

interface BuiltField {
  key: string;
  patternChars: number;
  defaultChars: number;
  check: ReturnType<typeof patternCheck> | undefined;
  hint: string;
  defaultAccepted: boolean;
}

export const PATTERN_ATTACK_SPECS: readonly AttackSpec[] = [
  {
    name: 'huge-pattern-schema',
    what: 'a 1 MB-pattern schema: a tool input schema with a 1 MB pattern and a 902-character one (137,935 RE2 instructions), each with a 3,000-character default',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      await env.attack('pattern-schema');
      const { tools } = await env.hostile.client.listTools();
      const tool = tools.find((t) => t.name === 'pattern_schema_tool');
      // What Run Tool… does as the form opens: parse the schema, then for each field its hint and
      // the default checked at once (formFlow.ts askField, quickInput.ts validateInitial).
      const cpu = process.cpuUsage();
      const started = performance.now();
      const form = parseForm(tool?.inputSchema, { source: 'tool' });
      const fields: BuiltField[] = form.fields.map((f) => {
        const pattern = f.kind === 'string' ? f.pattern : undefined;
        const value = f.kind === 'string' ? (f.default ?? '') : '';
        return {
          key: f.key,
          patternChars: pattern?.length ?? 0,
          defaultChars: value.length,
          check: pattern === undefined ? undefined : patternCheck(pattern),
          hint: describeField(f),
          defaultAccepted: validateField(f, value).ok,
        };
      });
      ctx.data.wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      ctx.data.cpuMs = (used.user + used.system) / 1000;
      ctx.data.fields = fields;
    },
    async verify({ env, data }) {
      const fields = data.fields as BuiltField[];
      const byKey = Object.fromEntries(fields.map((f) => [f.key, f]));
      const { huge, complex } = byKey;
      const cpuMs = data.cpuMs as number;
      return {
        outcome: `form built in ${(data.wallMs as number).toFixed(1)} ms (${cpuMs.toFixed(1)} ms CPU); ${fields.map((f) => `${f.key}: ${f.patternChars.toLocaleString('en')}-char pattern ${f.check?.kind === 'unchecked' ? `not enforced (${f.check.reason})` : 'ENFORCED'}`).join('; ')}; 3,000-char defaults left to the server`,
        checks: [
          check('the schema reached the form with both patterns and their 3,000-character defaults', (huge?.patternChars ?? 0) >= 1 << 20 && complex?.patternChars === 902 && fields.every((f) => f.defaultChars === 3000), fields.map(({ hint: _h, ...f }) => f)),
          check('the 1 MB pattern is not enforced here: too long', huge?.check?.kind === 'unchecked' && huge.check.reason === 'too-long', huge?.check),
          check('the 902-character pattern is not enforced here: too complex (never compiled)', complex?.check?.kind === 'unchecked' && complex.check.reason === 'too-complex', complex?.check),
          check("each field's hint says the server checks its pattern", fields.length === 2 && fields.every((f) => /The server's pattern is too (long|complex) to check here; the server checks it/.test(f.hint)), fields.map((f) => f.hint)),
          check('the defaults are not checked against the patterns (left to the server)', fields.every((f) => f.defaultAccepted), fields),
          // CPU time, so that a busy machine does not fail it; before, this took 31–41 s.
          check('the form is built in under 50 ms of CPU', cpuMs < 50, `${cpuMs.toFixed(1)} ms`),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
];
