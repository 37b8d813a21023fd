/**
 * The schemas of the extension's settings, a bound on each value the user sets (settings.ts reads
 * them; a setting not set is its default there). In the protocol part (scripts/lib/lazyParts.mjs):
 * zod is evaluated at the first setting the user has set, not at every activation.
 */
import { z } from 'zod';
import { MAX_TIMER_DELAY_MS } from './limits.js';

const positiveInt = (max = Number.MAX_SAFE_INTEGER) => z.number().int().positive().max(max);

/** Each setting with its schema; keys are relative to `mcpTasks.`. */
export const SETTING_SCHEMAS = {
  'receiver.maxTtlMs': positiveInt(MAX_TIMER_DELAY_MS),
  'receiver.defaultTtlMs': positiveInt(MAX_TIMER_DELAY_MS),
  'receiver.maxLiveTasksPerServer': positiveInt(10_000),
  'receiver.listPageSize': positiveInt(1000),
  'receiver.operationsPerSecond': positiveInt(100_000),
  'receiver.operationsBurst': positiveInt(100_000),
  'receiver.pollIntervalMs': positiveInt(600_000),
  'requestor.optionalToolsAsTasks': z.boolean(),
  'requestor.ttlMs': positiveInt(MAX_TIMER_DELAY_MS),
  'requestor.defaultPollIntervalMs': positiveInt(600_000),
  'requestor.maxStoredTasks': positiveInt(10_000),
  /** Most questions one call may put to the user (its input_required rounds, or its task's input requests): questionDoor.ts. */
  'requestor.maxQuestionsPerCall': positiveInt(10_000),
  'requestor.maxConcurrentTasksPerServer': z.number().int().min(0).max(1000),
  /** 0: no age limit. */
  'requestor.maxFinishedAgeHours': z.number().int().min(0).max(87_600),
  'sampling.modelByServer': z.record(z.string(), z.string()),
  /** When a request a server sends (sampling, elicitation) opens by itself: see src/ui/prompts/prompts.ts. */
  'prompts.open': z.enum(['notify', 'immediately']),
  /** The server host (serverHost/): stdio servers that outlive the window. */
  'serverHost.enabled': z.boolean(),
  'serverHost.excludedServers': z.array(z.string().max(256)).max(1000),
  'serverHost.graceSeconds': z.number().int().min(0).max(3600),
} as const;
