/**
 * Start-up rows "activation" (bench/README.md): the production bundle's load and `activate()` in
 * plain Node, each run in a fresh process (activationMain.ts; `vscode` is activationVscode.ts), with
 * no server configured and with a few stdio servers in the user settings, the two alternating.
 * The real-VS-Code figure (startup.ts, test-results/activation.json) times `activate()` only, inside
 * the extension host; this row adds the load of the bundle, which the extension host does first
 * and which grows with every byte the bundle evaluates at load.
 */
import { killByEnv } from '../scripts/lib/killByEnv.mjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOfChild, ROOT } from './common.js';
import { SENT_TASKS_FILE, SENT_TASKS_HEADER } from '../src/core/requestor/fileStorage.js';

/** One activation, as activationMain.ts prints it (ms). */
export interface ActivationRun {
  readonly loadMs: number;
  readonly loadCpuMs: number;
  readonly activateMs: number;
  readonly activateCpuMs: number;
  /** From `activate()` returning to every configured server `running` (0 servers: the configuration applied). */
  readonly startMs: number;
  readonly startCpuMs: number;
  /** The user's values read right after activate() returned (the extension's `settings.current`, as extension.ts does first). */
  readonly settingsMs: number;
  readonly settingsCpuMs: number;
  /** Reading the sent tasks an earlier window left, right after activate() returned (`tracker.restore()`, as extension.ts does). */
  readonly restoreMs: number;
  readonly restoreCpuMs: number;
  /** The sent tasks the tracker held once it read them (those an earlier window left). */
  readonly keptTasks: number;
  /** `vscode` names activation asked for that the stub lacks: must be empty, or the run measured a path that threw. */
  readonly missing: readonly string[];
  /** The bundles evaluated (the entry dist/start.js, dist/extension.js and the parts it loaded) when activate() returned and when every server ran. */
  readonly bundles: { readonly atActivation: readonly string[]; readonly running: readonly string[] };
  /** What the code cache did for each bundle the entry loaded (src/core/startup/codeCache.ts), by file name. */
  readonly codeCache?: Readonly<Record<string, string>>;
}

const MAIN_JS = join(__dirname, 'activationMain.js');

/**
 * One activation of `bundle` in a fresh process with `servers` stdio servers (the demo server) configured.
 * `laterWindow`: the measured activation is a later window's, in the storage a first activation of the same
 * configuration left (unmeasured, in a process of its own before it): what every window after a workspace's
 * first starts on. `settings`: other user values ({@link USER_VALUES}). `keptTasks`: in a later window, that many
 * finished sent tasks an earlier window left in the workspace storage ({@link keptTaskLines}).
 */
export async function activationOnce(bundle: string, servers: number, laterWindow = false, settings: Record<string, unknown> = {}, keptTasks = 0): Promise<ActivationRun> {
  const storage = mkdtempSync(join(tmpdir(), 'mcp-tasks-activation-'));
  const args = [MAIN_JS, bundle, String(servers), storage, join(ROOT, 'dist', 'demo-server.js'), JSON.stringify(settings)];
  try {
    // The storage folder is the workspace's (activationMain.ts `storageUri`): the tracker's file is there. The earlier
    // window read them too (a window after the second meets the code cache of the checks' part it left).
    if (keptTasks > 0) writeFileSync(join(storage, SENT_TASKS_FILE), `${[SENT_TASKS_HEADER, ...keptTaskLines(keptTasks)].join('\n')}\n`);
    if (laterWindow) await activationProcess(args, storage, servers);
    const run = await activationProcess(args, storage, servers);
    if (run.keptTasks !== keptTasks) throw new Error(`activation read ${run.keptTasks} kept tasks of the ${keptTasks} written (bench/activation.ts keptTaskLines)`);
    return run;
  } finally {
    // The run's server host and its servers outlive it on purpose (a window may come back): ended here.
    killByEnv(`XDG_RUNTIME_DIR=${storage}`);
    rmSync(storage, { recursive: true, force: true });
  }
}

async function activationProcess(args: string[], storage: string, servers: number): Promise<ActivationRun> {
  // The run's own server host folder (in its 0700 temporary folder): a host of its own, started as a window's first.
  const run = await jsonOfChild<ActivationRun>(`activation run (${servers} servers)`, args, { env: { ...process.env, XDG_RUNTIME_DIR: storage } });
  if (run.missing.length) throw new Error(`activation asked the vscode stub for ${run.missing.join(', ')} (bench/activationVscode.ts)`);
  return run;
}

/**
 * `n` finished tool calls as an earlier window stores them (src/core/requestor/storedTasks.ts), each with its task
 * and a short result: what a window finds after a reload once its user has run some tools.
 */
export function keptTaskLines(n: number): string[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(now - (n - i) * 60_000).toISOString();
    return JSON.stringify({
      key: `kept-${i}`,
      serverId: 'bench-1',
      serverName: 'bench-1',
      toolName: 'echo',
      argsSummary: `{"text":"call ${i}"}`,
      mode: 'task',
      origin: 'local',
      sentAt: now - (n - i) * 60_000,
      phase: 'done',
      task: { taskId: `task-${i}`, status: 'completed', createdAt: at, lastUpdatedAt: at, ttl: 3_600_000, pollInterval: 1000 },
      outcome: { kind: 'result', result: { content: [{ type: 'text', text: `echo: call ${i}` }] } },
      finishedAt: now - (n - i) * 60_000 + 1000,
      polls: 2,
      resultFetches: 1,
      wire: '2025-11-25',
    });
  });
}

/** The finished tasks in the row "tasks kept from an earlier window". */
export const KEPT_TASKS = 100;

/** A user's own values, as one who changed two defaults has them: what the row "user values set" activates with. */
export const USER_VALUES: Readonly<Record<string, unknown>> = { 'mcpTasks.requestor.ttlMs': 3_600_000, 'mcpTasks.prompts.open': 'immediately' };

/**
 * `runs` activations per configuration of `bundle`, in turn: 0 servers, `servers`, a later window with 0 servers,
 * 0 servers with {@link USER_VALUES} set, and a later window with 0 servers and {@link KEPT_TASKS} kept tasks.
 */
export async function activationRuns(
  bundle: string,
  runs: number,
  servers: number,
): Promise<{ readonly none: ActivationRun[]; readonly some: ActivationRun[]; readonly later: ActivationRun[]; readonly userValues: ActivationRun[]; readonly kept: ActivationRun[] }> {
  const none: ActivationRun[] = [];
  const some: ActivationRun[] = [];
  const later: ActivationRun[] = [];
  const userValues: ActivationRun[] = [];
  const kept: ActivationRun[] = [];
  // One unmeasured run each: the first process after a build also pays for the OS reading the files.
  await activationOnce(bundle, 0);
  await activationOnce(bundle, servers);
  for (let i = 0; i < runs; i++) {
    none.push(await activationOnce(bundle, 0));
    some.push(await activationOnce(bundle, servers));
    later.push(await activationOnce(bundle, 0, true));
    userValues.push(await activationOnce(bundle, 0, false, USER_VALUES));
    kept.push(await activationOnce(bundle, 0, true, {}, KEPT_TASKS));
  }
  return { none, some, later, userValues, kept };
}
