/**
 * One activation in a fresh Node process, for the start-up row (bench/activation.ts): requires
 * the production bundle (the entry dist/start.js, as the extension host does; or any bundle with
 * `activate`) with `vscode` resolved to activationVscode.ts, calls `activate()` with a
 * fake ExtensionContext, and prints one JSON line: the wall time and this process's CPU
 * (`process.cpuUsage`) of the extension's own `activate()` (as extension.ts times it) and of
 * loading, all the rest until it returned (the entry, and dist/extension.js parsed and every module it
 * evaluates at load evaluated); then, with servers configured (stdio, user settings), of the configuration
 * being applied and every server connected (`running`): the connection's code is first needed there.
 *
 * Usage: node activationMain.js <bundle> <servers> <storage-dir> [<server script> [<settings>]]
 * (`settings`: a JSON object of other user values, e.g. `{"mcpTasks.requestor.ttlMs":60000}`).
 */
import Module, { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { vscodeModule, userSettings } from './activationVscode.js';

interface ApiForBench {
  /** The extension's own activate() (extension.ts), wall and CPU ms. */
  readonly activationTimeMs: number;
  readonly activationCpuMs: number;
  ready(): Promise<void>;
  readonly registry: { readonly connections: ReadonlyArray<{ readonly state: { readonly kind: string } }>; onDidChangeState(l: () => void): { dispose(): void } };
  readonly tracker: { restore(): void; snapshotsWhere(filter: () => boolean): readonly unknown[] };
  readonly settings: { readonly current: unknown };
}

/** The names activation asked of `vscode` that the stub lacks ("window.foo"). */
const missing = new Set<string>();
function recording<T extends object>(target: T, path: string): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      const value = Reflect.get(t, key, receiver) as unknown;
      if (value === undefined && typeof key === 'string' && !(key in t) && key !== 'then') missing.add(`${path}${key}`);
      // Namespaces (window, workspace, …) are recorded too; classes and functions are returned as they are.
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? recording(value, `${path}${String(key)}.`) : value;
    },
  });
}

const [bundle, serversArg, storage, serverScript, settings = '{}'] = process.argv.slice(2);
const servers = Number(serversArg ?? 0);
if (!bundle || !storage || (servers > 0 && !serverScript)) throw new Error('usage: activationMain.js <bundle> <servers> <storage-dir> [<server script> [<settings>]]');
Object.assign(userSettings, JSON.parse(settings) as Record<string, unknown>);
userSettings['mcpTasks.servers'] = Object.fromEntries(Array.from({ length: servers }, (_, i) => [`bench-${i + 1}`, { type: 'stdio', command: process.execPath, args: [serverScript] }]));

// `__esModule`: the bundle's namespace import then reads this object itself (through the recording proxy).
const vscode = recording({ ...vscodeModule, __esModule: true }, '');
const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = loader._load;
loader._load = function (this: unknown, request: string, ...rest: unknown[]): unknown {
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};

const memento = () => {
  const values = new Map<string, unknown>();
  return { keys: () => [...values.keys()], get: (k: string, d?: unknown) => values.get(k) ?? d, update: (k: string, v: unknown) => (values.set(k, v), Promise.resolve()), setKeysForSync: () => undefined };
};
const folder = vscodeModule.Uri as { file(path: string): unknown };
const context = {
  subscriptions: [] as Array<{ dispose(): unknown }>,
  // Test mode: the returned API includes ready() and the registry (production mode returns the public API only).
  extensionMode: 3,
  globalState: memento(),
  workspaceState: memento(),
  secrets: { get: () => Promise.resolve(undefined), store: () => Promise.resolve(), delete: () => Promise.resolve(), onDidChange: () => ({ dispose: () => undefined }) },
  storageUri: folder.file(storage),
  globalStorageUri: folder.file(storage),
  logUri: folder.file(storage),
  // The extension's folder (the bundle's parent's parent): the server host's script is there (dist/serverHost.js).
  // The global storage is where the entry keeps its code cache (a later window finds what the first wrote at its end).
  extensionUri: folder.file(dirname(dirname(resolve(bundle)))),
  extensionPath: dirname(dirname(resolve(bundle))),
};

const ms = (from: number) => performance.now() - from;
/** The bundles beside the extension's that have been evaluated (in the module cache): the parts it loads at first need (scripts/lib/lazyParts.mjs). */
const bundlesEvaluated = () => {
  const dir = dirname(resolve(bundle!));
  return Object.keys(createRequire(__filename).cache)
    .filter((f) => dirname(f) === dir)
    .map((f) => basename(f))
    .sort();
};
const cpuMs = (from: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1000;
};

async function main(): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const ext = createRequire(__filename)(bundle!) as { activate(context: unknown): ApiForBench; codeCacheOutcomes?(): Record<string, string> };
  const api = ext.activate(context);
  const totalMs = ms(t0);
  const totalCpuMs = cpuMs(c0);
  // `activate()` is the extension's own (extension.ts times it, as in real VS Code); loading is the rest: the
  // entry, and dist/extension.js compiled and evaluated, which the entry does inside its activate().
  const activateMs = api.activationTimeMs;
  const activateCpuMs = api.activationCpuMs;
  const loadMs = totalMs - activateMs;
  const loadCpuMs = totalCpuMs - activateCpuMs;
  const atActivation = bundlesEvaluated();
  // The user's values, read right after activation as the extension reads them (extension.ts, first in the same
  // immediate as the tasks below), timed on their own.
  const t0s = performance.now();
  const c0s = process.cpuUsage();
  void api.settings.current;
  const settingsMs = ms(t0s);
  const settingsCpuMs = cpuMs(c0s);
  // The sent tasks an earlier window left, read right after activation as the extension reads them (extension.ts:
  // `tracker.restore()`, before the configuration), timed on their own; the row checks none was dropped.
  const t1 = performance.now();
  const c1 = process.cpuUsage();
  api.tracker.restore();
  const restoreMs = ms(t1);
  const restoreCpuMs = cpuMs(c1);
  const keptTasks = api.tracker.snapshotsWhere(() => true).length;
  const t2 = performance.now();
  const c2 = process.cpuUsage();
  await api.ready();
  // Every configured server connected; a server that fails ends the run (the row would measure nothing).
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      const failed = api.registry.connections.find((c) => c.state.kind !== 'stopped' && c.state.kind !== 'starting' && c.state.kind !== 'running');
      if (failed) reject(new Error(`a server did not connect: ${JSON.stringify(failed.state)}`));
      return api.registry.connections.length === servers && api.registry.connections.every((c) => c.state.kind === 'running');
    };
    if (check()) return resolve();
    const sub = api.registry.onDidChangeState(() => check() && (sub.dispose(), resolve()));
  });
  const startMs = ms(t2);
  const startCpuMs = cpuMs(c2);
  console.log(JSON.stringify({ loadMs, loadCpuMs, activateMs, activateCpuMs, settingsMs, settingsCpuMs, restoreMs, restoreCpuMs, startMs, startCpuMs, keptTasks, missing: [...missing], bundles: { atActivation, running: bundlesEvaluated() }, codeCache: ext.codeCacheOutcomes?.() }));
  for (const d of context.subscriptions.reverse()) d.dispose();
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
