/**
 * The inputs of the language-model tools (what the chat agent sends), validated with zod. Each
 * error names the tool and the field and says what to send instead, so the model can retry.
 * The JSON schemas the model sees are in package.json (`contributes.languageModelTools`); a
 * unit test keeps both in step.
 */
import { z } from 'zod';

/** Names of the tools (package.json `languageModelTools[].name`). */
export const AgentToolNames = {
  listTools: 'mcpTasks_listTools',
  startTask: 'mcpTasks_startTask',
  getTaskStatus: 'mcpTasks_getTaskStatus',
  getTaskResult: 'mcpTasks_getTaskResult',
  cancelTask: 'mcpTasks_cancelTask',
} as const;

export type AgentToolName = (typeof AgentToolNames)[keyof typeof AgentToolNames];

/** Longest wait of `getTaskResult` (seconds); larger values are capped. */
export const MAX_RESULT_WAIT_SECONDS = 60;
/** Wait of `getTaskResult` when the model names none (seconds). */
export const DEFAULT_RESULT_WAIT_SECONDS = 30;

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

export type AgentInput<N extends AgentToolName> = z.output<(typeof AgentInputSchemas)[N]>;

/** Raised for input the model sent that does not fit; its message is written for the model. */
export class AgentInputError extends Error {
  override readonly name = 'AgentInputError';
}

/** Parses a tool's input; throws {@link AgentInputError} naming each problem. */
export function parseAgentInput<N extends AgentToolName>(tool: N, raw: unknown): AgentInput<N> {
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
