/**
 * One activation of the built extension (its entry, dist/start.js, which loads dist/extension.js
 * through the code cache in the window's global storage) in this fresh process, for
 * activation.test.ts: `vscode` is the bench's stub (bench/activationVscode.ts), the user settings
 * name `servers` stdio demo servers (and hold `settings`, a JSON object of other user values). Prints one JSON line: what was evaluated (bundles, zod) when
 * activate() returned and once the configuration was applied, and — with servers —
 * how a tool call sent as a task through the bundle ended, what the code cache did for each bundle, and what the
 * extension logged as a warning or an error (its subscriptions disposed first, as the window goes).
 *
 * Usage: node --import tsx activationChild.ts <dist dir> <servers> <storage dir> <demo server script> [<settings>]
 */
import Module, { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { loggedLines, userSettings, vscodeModule } from '../../../bench/activationVscode.js';

const [dist, serversArg, storage, demo, settings = '{}'] = process.argv.slice(2) as [string, string, string, string, string?];
const servers = Number(serversArg);
Object.assign(userSettings, JSON.parse(settings) as Record<string, unknown>);
userSettings['mcpTasks.servers'] = Object.fromEntries(Array.from({ length: servers }, (_, i) => [`s${i + 1}`, { type: 'stdio', command: process.execPath, args: [demo] }]));

const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = loader._load;
const vscode = { ...vscodeModule, __esModule: true };
loader._load = function (this: unknown, request: string, ...rest: unknown[]): unknown {
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};
const req = createRequire(__filename);
/**
 * What has been evaluated: the extension's bundles in the module cache, and whether zod was (its
 * core puts its registry on globalThis when evaluated; the SDK's schemas are built with it, so no
 * SDK is evaluated without zod).
 */
const evaluated = () => ({
  bundles: Object.keys(req.cache).filter((f) => f.startsWith(dist) && f.endsWith('.js')).map((f) => basename(f)).sort(),
  zod: '__zod_globalRegistry' in globalThis,
});

interface Connection {
  readonly id: string;
  readonly state: { readonly kind: string };
}
interface Api {
  ready(): Promise<void>;
  readonly registry: { readonly connections: readonly Connection[]; onDidChangeState(l: () => void): { dispose(): void } };
  readonly tracker: {
    callTool(c: Connection, tool: { name: string; execution?: { taskSupport: string } }, args: Record<string, unknown>, o: { mode: 'task' }): Promise<string>;
    snapshot(): Array<{ key: string; phase: string; mode: string; outcome?: { kind: string; result?: unknown } }>;
    onDidChange(l: () => void): { dispose(): void };
  };
  readonly settings: { readonly current: Record<string, unknown> };
}

const folder = (vscodeModule.Uri as { file(p: string): unknown }).file(storage);
const memento = () => {
  const values = new Map<string, unknown>();
  return { keys: () => [...values.keys()], get: (k: string, d?: unknown) => values.get(k) ?? d, update: (k: string, v: unknown) => (values.set(k, v), Promise.resolve()), setKeysForSync: () => undefined };
};
const context = {
  subscriptions: [] as Array<{ dispose(): unknown }>,
  extensionMode: 3,
  globalState: memento(),
  workspaceState: memento(),
  secrets: { get: () => Promise.resolve(undefined), store: () => Promise.resolve(), delete: () => Promise.resolve(), onDidChange: () => ({ dispose: () => undefined }) },
  storageUri: folder,
  globalStorageUri: folder,
  logUri: folder,
  extensionUri: folder,
  extensionPath: storage,
};

/** Resolves when `check` holds, checked at each event of `on`. */
function until(on: (l: () => void) => { dispose(): void }, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const sub = on(() => check() && (sub.dispose(), resolve()));
  });
}

async function main(): Promise<void> {
  const ext = req(join(dist, 'start.js')) as { activate(c: unknown): Api; deactivate(): unknown; codeCacheOutcomes(): Record<string, string> };
  const api = ext.activate(context);
  const atActivation = evaluated();
  // The sent tasks an earlier window left, read here at their first need (the extension reads them right after activation).
  const kept = api.tracker.snapshot().map((s) => ({ key: s.key, phase: s.phase, outcome: s.outcome?.kind }));
  await api.ready();
  await until(api.registry.onDidChangeState, () => api.registry.connections.length === servers && api.registry.connections.every((c) => c.state.kind === 'running'));
  const afterConfig = evaluated();
  // The values the extension holds once it has read them (right after activation).
  const values = { 'requestor.ttlMs': api.settings.current['requestor.ttlMs'], 'prompts.open': api.settings.current['prompts.open'] };
  let call: unknown;
  if (servers > 0) {
    const key = await api.tracker.callTool(api.registry.connections[0]!, { name: 'quick_echo', execution: { taskSupport: 'optional' } }, { text: 'from the bundle', delayMs: 10 }, { mode: 'task' });
    const done = () => api.tracker.snapshot().find((s) => s.key === key && s.phase === 'done');
    await until(api.tracker.onDidChange, () => done() !== undefined);
    const s = done()!;
    call = { mode: s.mode, outcome: s.outcome?.kind, result: s.outcome?.result };
  }
  const codeCache = ext.codeCacheOutcomes();
  // As VS Code closes a window: `deactivate()` first (the tracker writes its tasks down, so the next window finds them
  // whatever the save timer did), then the subscriptions in the order VS Code disposes them (first added, first
  // disposed): the entry's code cache writes what it has left first.
  await ext.deactivate();
  for (const d of context.subscriptions) await d.dispose();
  console.log(JSON.stringify({ atActivation, afterConfig, values, kept, call, codeCache, logged: loggedLines.filter((l) => !l.channel.includes('leftover')) }));
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
