/**
 * The schemas of the language-model tools' inputs (inputs.ts names the tools): in the protocol part
 * (scripts/lib/lazyParts.mjs), evaluated at the first tool call of the chat agent.
 */
import { z } from 'zod';
import { AgentInputError, AgentToolNames, DEFAULT_RESULT_WAIT_SECONDS, MAX_RESULT_WAIT_SECONDS, type AgentInput, type AgentToolName } from './inputs.js';

const name = (what: string) => z.string({ error: `"${what}" must be a string` }).trim().min(1, `"${what}" must not be empty`).max(200, `"${what}" is too long`);
const taskId = z.object({ taskId: name('taskId') });

export const AgentInputSchemas = {
  [AgentToolNames.listTools]: z.object({ server: name('server').optional() }),
  [AgentToolNames.startTask]: z.object({
    server: name('server'),
    tool: name('tool'),
    arguments: z.record(z.string(), z.unknown(), { error: '"arguments" must be a JSON object of the tool\'s arguments (as its inputSchema says)' }).optional(),
  }),
  [AgentToolNames.getTaskStatus]: taskId,
  [AgentToolNames.getTaskResult]: taskId.extend({
    waitSeconds: z
      .number({ error: '"waitSeconds" must be a number of seconds' })
      .min(0, '"waitSeconds" must be 0 or more')
      .optional()
      .transform((v) => Math.min(v ?? DEFAULT_RESULT_WAIT_SECONDS, MAX_RESULT_WAIT_SECONDS)),
  }),
  [AgentToolNames.cancelTask]: taskId,
} as const;

/** Parses a tool's input (inputs.ts's parseAgentInput); throws {@link AgentInputError} naming each problem. */
export function parseAgentInputWith<N extends AgentToolName>(tool: N, raw: unknown): AgentInput<N> {
  const r = AgentInputSchemas[tool].safeParse(raw ?? {});
  if (r.success) return r.data as AgentInput<N>;
  const problems = r.error.issues.map((i) => {
    const field = i.path.length ? i.path.join('.') : undefined;
    if (i.code === 'invalid_type' && field && valueAt(raw, i.path) === undefined) return `"${field}" is required`;
    return i.message;
  });
  throw new AgentInputError(`Invalid input for ${tool}: ${[...new Set(problems)].join('; ')}.`);
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}
