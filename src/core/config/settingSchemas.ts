/**
 * The schemas of the extension's settings, a bound on each value the user sets (settings.ts reads
 * them; a setting not set is its default there). In the part of the checks (scripts/lib/lazyParts.mjs:
 * `dist/checks.js`, with the stored sent tasks'), evaluated at the first setting the user has set, not at every activation;
 * on `zod/mini`, which keeps only the checks used here (≈ 20 KB, where zod's classic API is
 * ≈ 190 KB), so a user who sets one `mcpTasks.*` value evaluates neither the SDK nor zod's classic
 * API when the extension reads it (right after activation).
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { MAX_TIMER_DELAY_MS } from './limits.js';

const positiveInt = (max = Number.MAX_SAFE_INTEGER) => z.number().check(z.int(), z.positive(), z.maximum(max));
const intWithin = (min: number, max: number) => z.number().check(z.int(), z.minimum(min), z.maximum(max));

/**
 * Each setting with its schema, made at the first value of that setting checked (a schema's first
 * making is most of this part's cost, and a user sets a few of them); keys are relative to `mcpTasks.`.
 */
export const SETTING_SCHEMAS = {
  'receiver.maxTtlMs': () => positiveInt(MAX_TIMER_DELAY_MS),
  'receiver.defaultTtlMs': () => positiveInt(MAX_TIMER_DELAY_MS),
  'receiver.maxLiveTasksPerServer': () => positiveInt(10_000),
  'receiver.listPageSize': () => positiveInt(1000),
  'receiver.operationsPerSecond': () => positiveInt(100_000),
  'receiver.operationsBurst': () => positiveInt(100_000),
  'receiver.pollIntervalMs': () => positiveInt(600_000),
  'requestor.optionalToolsAsTasks': () => z.boolean(),
  'requestor.ttlMs': () => positiveInt(MAX_TIMER_DELAY_MS),
  'requestor.defaultPollIntervalMs': () => positiveInt(600_000),
  'requestor.maxStoredTasks': () => positiveInt(10_000),
  /** Most questions one call may put to the user (its input_required rounds, or its task's input requests): questionDoor.ts. */
  'requestor.maxQuestionsPerCall': () => positiveInt(10_000),
  'requestor.maxConcurrentTasksPerServer': () => intWithin(0, 1000),
  /** 0: no age limit. */
  'requestor.maxFinishedAgeHours': () => intWithin(0, 87_600),
  'sampling.modelByServer': () => z.record(z.string(), z.string()),
  /** When a request a server sends (sampling, elicitation) opens by itself: see src/ui/prompts/prompts.ts. */
  'prompts.open': () => z.enum(['notify', 'immediately']),
  /** The server host (serverHost/): stdio servers that outlive the window. */
  'serverHost.enabled': () => z.boolean(),
  'serverHost.excludedServers': () => z.array(z.string().check(z.maxLength(256))).check(z.maxLength(1000)),
  'serverHost.graceSeconds': () => intWithin(0, 3600),
} as const;

export type SettingKey = keyof typeof SETTING_SCHEMAS;
/** A setting's value, as its schema outputs it. */
export type SettingValue<K extends SettingKey> = z.output<ReturnType<(typeof SETTING_SCHEMAS)[K]>>;
const made = new Map<SettingKey, z.ZodMiniType>();

/**
 * English messages for this check alone. zod/mini installs no locale, and zod's global
 * configuration is shared by every copy of zod in the extension host (other extensions' too), so
 * it is not set from here.
 */
const ENGLISH = { error: en().localeError };

/** `raw` checked against `key`'s schema: the value to use, or why it was refused ("Too big: …"). */
export function checkSetting<K extends SettingKey>(key: K, raw: unknown): { ok: true; value: SettingValue<K> } | { ok: false; message: string } {
  let schema = made.get(key);
  if (!schema) made.set(key, (schema = SETTING_SCHEMAS[key]()));
  const r = schema.safeParse(raw, ENGLISH);
  return r.success ? { ok: true, value: r.data as SettingValue<K> } : { ok: false, message: r.error.issues[0]?.message ?? 'invalid value' };
}
