/**
 * The extension's settings (`mcpTasks.*`), validated with zod. An invalid value falls back to
 * its default and is reported by key, so one typo never disables the rest.
 *
 * Every one of them sets a limit, a consent or how a server's request reaches the user (which
 * model answers sampling, whether prompts open by themselves), so only the user's own settings
 * set them: they are application-scoped in package.json, read from the user's value only
 * ({@link readUserSettings}), and a value a workspace or folder sets is ignored and reported.
 */
import { z } from 'zod';
import type { InspectedSetting } from './trust.js';
import { DEFAULT_LEDGER_LIMITS, DEFAULT_MAX_QUESTIONS_PER_CALL, DEFAULT_MAX_FINISHED_AGE_MS, DEFAULT_MAX_STORED_TASKS, MAX_TIMER_DELAY_MS, type LedgerLimits } from './limits.js';

const positiveInt = (max = Number.MAX_SAFE_INTEGER) => z.number().int().positive().max(max);

/** Each setting with its schema and default; keys are relative to `mcpTasks.`. */
export const SETTING_SCHEMAS = {
  'receiver.maxTtlMs': positiveInt(MAX_TIMER_DELAY_MS).default(DEFAULT_LEDGER_LIMITS.maxTtlMs),
  'receiver.defaultTtlMs': positiveInt(MAX_TIMER_DELAY_MS).default(DEFAULT_LEDGER_LIMITS.defaultTtlMs),
  'receiver.maxLiveTasksPerServer': positiveInt(10_000).default(DEFAULT_LEDGER_LIMITS.maxLiveTasksPerServer),
  'receiver.listPageSize': positiveInt(1000).default(DEFAULT_LEDGER_LIMITS.listPageSize),
  'receiver.operationsPerSecond': positiveInt(100_000).default(DEFAULT_LEDGER_LIMITS.operationsPerSecond),
  'receiver.operationsBurst': positiveInt(100_000).default(DEFAULT_LEDGER_LIMITS.operationsBurst),
  'receiver.pollIntervalMs': positiveInt(600_000).default(DEFAULT_LEDGER_LIMITS.pollIntervalMs),
  'requestor.optionalToolsAsTasks': z.boolean().default(true),
  'requestor.ttlMs': positiveInt(MAX_TIMER_DELAY_MS).default(30 * 60 * 1000),
  'requestor.defaultPollIntervalMs': positiveInt(600_000).default(1000),
  'requestor.maxStoredTasks': positiveInt(10_000).default(DEFAULT_MAX_STORED_TASKS),
  /** Most questions one call may put to the user (its input_required rounds, or its task's input requests): questionDoor.ts. */
  'requestor.maxQuestionsPerCall': positiveInt(10_000).default(DEFAULT_MAX_QUESTIONS_PER_CALL),
  'requestor.maxConcurrentTasksPerServer': z.number().int().min(0).max(1000).default(0),
  /** 0: no age limit. */
  'requestor.maxFinishedAgeHours': z.number().int().min(0).max(87_600).default(DEFAULT_MAX_FINISHED_AGE_MS / 3_600_000),
  'sampling.modelByServer': z.record(z.string(), z.string()).default({}),
  /** When a request a server sends (sampling, elicitation) opens by itself: see src/ui/prompts.ts. */
  'prompts.open': z.enum(['notify', 'immediately']).default('notify'),
} as const;

export type SettingKey = keyof typeof SETTING_SCHEMAS;
export type Settings = { [K in SettingKey]: z.output<(typeof SETTING_SCHEMAS)[K]> };

export interface SettingsProblem {
  readonly key: string;
  readonly message: string;
}

/** Reads every setting through `get` (e.g. `WorkspaceConfiguration.get`), validating each. */
export function readSettings(get: (key: string) => unknown): { settings: Settings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(SETTING_SCHEMAS) as Array<[SettingKey, z.ZodType]>) {
    const raw = get(key);
    const r = schema.safeParse(raw === null ? undefined : raw);
    if (r.success) {
      out[key] = r.data;
    } else {
      problems.push({ key: `mcpTasks.${key}`, message: `${r.error.issues[0]?.message ?? 'invalid value'} (using the default)` });
      out[key] = schema.parse(undefined);
    }
  }
  return { settings: out as Settings, problems };
}

/**
 * {@link readSettings} from the user's own values only (`inspect(key).globalValue`); `ignored`
 * names every setting a workspace or folder tried to set (for a note to the user).
 */
export function readUserSettings(inspect: (key: string) => InspectedSetting | undefined): { settings: Settings; problems: SettingsProblem[]; ignored: string[] } {
  const ignored: string[] = [];
  const { settings, problems } = readSettings((key) => {
    const i = inspect(key);
    if (i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined) ignored.push(`mcpTasks.${key}`);
    return i?.globalValue;
  });
  return { settings, problems, ignored };
}

/** The ledger limits from the settings. */
export function ledgerLimitsFrom(s: Settings): LedgerLimits {
  return {
    maxTtlMs: s['receiver.maxTtlMs'],
    defaultTtlMs: Math.min(s['receiver.defaultTtlMs'], s['receiver.maxTtlMs']),
    maxLiveTasksPerServer: s['receiver.maxLiveTasksPerServer'],
    listPageSize: s['receiver.listPageSize'],
    operationsPerSecond: s['receiver.operationsPerSecond'],
    operationsBurst: s['receiver.operationsBurst'],
    pollIntervalMs: s['receiver.pollIntervalMs'],
  };
}
