/**
 * The inputs of the language-model tools (what the chat agent sends), validated with zod (agentInputSchemas.ts). Each
 * error names the tool and the field and says what to send instead, so the model can retry.
 * The JSON schemas the model sees are in package.json (`contributes.languageModelTools`); a
 * unit test keeps both in step.
 */
import type { z } from 'zod';
import type { AgentInputSchemas } from './agentInputSchemas.js';

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

export type AgentInput<N extends AgentToolName> = z.output<(typeof AgentInputSchemas)[N]>;

/** Raised for input the model sent that does not fit; its message is written for the model. */
export class AgentInputError extends Error {
  override readonly name = 'AgentInputError';
}

/**
 * Parses a tool's input; throws {@link AgentInputError} naming each problem. The schemas (zod,
 * agentInputSchemas.ts) are in the protocol part (scripts/lib/lazyParts.mjs): evaluated at the
 * first tool call of the chat agent, not at activation.
 */
export function parseAgentInput<N extends AgentToolName>(tool: N, raw: unknown): AgentInput<N> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return (require('./agentInputSchemas.js') as typeof import('./agentInputSchemas.js')).parseAgentInputWith(tool, raw);
}
