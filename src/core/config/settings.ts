/**
 * The extension's settings (`mcpTasks.*`): each value the user sets is validated with zod
 * (settingSchemas.ts, a part of its own evaluated at the first value set: the extension reads them
 * right after activation, not in it (src/ui/adapters/userSettings.ts), and a value set evaluates
 * zod/mini's checks alone, not the SDK). An invalid value falls back to its default and is reported by key,
 * so one typo never disables the rest.
 *
 * Every one of them sets a limit, a consent or how a server's request reaches the user (which
 * model answers sampling, whether prompts open by themselves), so only the user's own settings
 * set them: they are application-scoped in package.json, read from the user's value only
 * ({@link readUserSettings}), and a value a workspace or folder sets is ignored and reported.
 */
import type { SettingKey, SettingValue } from './settingSchemas.js';
import type { InspectedSetting } from './trust.js';
import { DEFAULT_LEDGER_LIMITS, DEFAULT_MAX_QUESTIONS_PER_CALL, DEFAULT_MAX_FINISHED_AGE_MS, DEFAULT_MAX_STORED_TASKS, type LedgerLimits } from './limits.js';

export type { SettingKey };
export type Settings = { [K in SettingKey]: SettingValue<K> };

/** Each setting's default: what a setting the user has not set is (settingSchemas.ts validates a value set against it). */
export const DEFAULT_SETTINGS: Settings = {
  'receiver.maxTtlMs': DEFAULT_LEDGER_LIMITS.maxTtlMs,
  'receiver.defaultTtlMs': DEFAULT_LEDGER_LIMITS.defaultTtlMs,
  'receiver.maxLiveTasksPerServer': DEFAULT_LEDGER_LIMITS.maxLiveTasksPerServer,
  'receiver.listPageSize': DEFAULT_LEDGER_LIMITS.listPageSize,
  'receiver.operationsPerSecond': DEFAULT_LEDGER_LIMITS.operationsPerSecond,
  'receiver.operationsBurst': DEFAULT_LEDGER_LIMITS.operationsBurst,
  'receiver.pollIntervalMs': DEFAULT_LEDGER_LIMITS.pollIntervalMs,
  'requestor.optionalToolsAsTasks': true,
  'requestor.ttlMs': 30 * 60 * 1000,
  'requestor.defaultPollIntervalMs': 1000,
  'requestor.maxStoredTasks': DEFAULT_MAX_STORED_TASKS,
  'requestor.maxQuestionsPerCall': DEFAULT_MAX_QUESTIONS_PER_CALL,
  'requestor.maxConcurrentTasksPerServer': 0,
  'requestor.maxFinishedAgeHours': DEFAULT_MAX_FINISHED_AGE_MS / 3_600_000,
  'sampling.modelByServer': Object.freeze({}),
  'prompts.open': 'notify',
  'serverHost.enabled': true,
  'serverHost.excludedServers': Object.freeze([]) as unknown as string[],
  'serverHost.graceSeconds': 120,
};

/**
 * The schemas (zod/mini) are a part of their own (scripts/lib/lazyParts.mjs): evaluated at the
 * first setting the user has set, not at an activation where every setting is its default.
 */
function schemas(): typeof import('./settingSchemas.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return require('./settingSchemas.js') as typeof import('./settingSchemas.js');
}

export interface SettingsProblem {
  readonly key: string;
  readonly message: string;
}

/** Reads every setting through `get` (e.g. `WorkspaceConfiguration.get`), validating each value set. */
export function readSettings(get: (key: string) => unknown): { settings: Settings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as SettingKey[]) {
    const raw = get(key);
    if (raw === undefined || raw === null) continue;
    const r = schemas().checkSetting(key, raw);
    if (r.ok) out[key] = r.value;
    else problems.push({ key: `mcpTasks.${key}`, message: `${r.message} (using the default)` });
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
