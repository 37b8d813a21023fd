/** Section 4 (`startup`) — start-up: production bundle size, .vsix size, activate() time from the VS Code runner. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.js';
import { median } from './stats.js';
import type { ActivationSample } from '../test/vscode/activationRecord.js';

export interface StartupFigures {
  /** All shipped bundles together (bytes). */
  readonly bundleBytes?: number;
  /** Each shipped bundle and its size ("dist/forms.js 167222"). */
  readonly bundles?: readonly string[];
  readonly bundleError?: string;
  readonly vsixBytes?: number;
  readonly vsixNote?: string;
  readonly activationMs?: number;
  readonly activationCpuMs?: number;
  readonly activationNote?: string;
  /** How many extension-host sessions the activation figures are the median of. */
  readonly activationSamples?: number;
}

/**
 * The activations in test-results/activation.json's `text`: a run's record (`activations`), or the single figure
 * older runs wrote (`activationTimeMs`); none when it cannot be read. `vscode`: the version they ran in.
 */
export function activationRecordOf(text: string): { readonly vscode?: string; readonly samples: ActivationSample[] } {
  try {
    const a = JSON.parse(text) as { activations?: unknown; activationTimeMs?: unknown; activationCpuMs?: unknown; vscode?: unknown };
    const vscode = typeof a.vscode === 'string' ? a.vscode : undefined;
    if (Array.isArray(a.activations)) {
      const samples = (a.activations as Array<Partial<ActivationSample> | null>).filter(
        (s): s is ActivationSample => typeof s?.session === 'string' && typeof s.wallMs === 'number' && typeof s.cpuMs === 'number',
      );
      return { vscode, samples };
    }
    if (typeof a.activationTimeMs === 'number' && typeof a.activationCpuMs === 'number') return { vscode, samples: [{ session: 'main', wallMs: a.activationTimeMs, cpuMs: a.activationCpuMs }] };
  } catch {
    /* unreadable: treated as not measured */
  }
  return { samples: [] };
}

function run(cmd: string, args: string[]): string | undefined {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', shell: process.platform === 'win32' });
  return r.status === 0 ? undefined : `${[cmd, ...args].join(' ')} failed (${r.status}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ')}`;
}

export function startupFigures(): StartupFigures {
  const out: { -readonly [K in keyof StartupFigures]: StartupFigures[K] } = {};
  const bundle = join(ROOT, 'dist', 'extension.js');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  if (pkg.scripts?.package) {
    // `npm run package` builds the production bundle itself, then packs it.
    const err = run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'package']);
    const vsix = /--out\s+(\S+)/.exec(pkg.scripts.package)?.[1] ?? 'dist/mcp-tasks.vsix';
    if (err) out.vsixNote = err;
    else if (existsSync(join(ROOT, vsix))) out.vsixBytes = statSync(join(ROOT, vsix)).size;
    else out.vsixNote = `npm run package wrote no ${vsix}`;
    if (err) out.bundleError = run(process.execPath, ['esbuild.mjs', '--production']);
  } else {
    out.vsixNote = 'no `npm run package` script yet';
    out.bundleError = run(process.execPath, ['esbuild.mjs', '--production']);
  }
  // Every bundle the .vsix ships (.vscodeignore's `!dist/….js`): the extension and the parts it loads at first need.
  const shipped = readFileSync(join(ROOT, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => /^!(dist\/[^*]+\.js)$/.exec(l.trim())?.[1])
    .filter((f): f is string => f !== undefined);
  if (!out.bundleError && existsSync(bundle)) {
    out.bundleBytes = shipped.reduce((sum, f) => sum + (existsSync(join(ROOT, f)) ? statSync(join(ROOT, f)).size : 0), 0);
    out.bundles = shipped.map((f) => `${f} ${existsSync(join(ROOT, f)) ? statSync(join(ROOT, f)).size : 'missing'}`);
  }
  const activation = join(ROOT, 'test-results', 'activation.json');
  if (existsSync(activation)) {
    const { vscode, samples } = activationRecordOf(readFileSync(activation, 'utf8'));
    if (samples.length > 0) {
      // The median of the run's sessions: one activation moves with what else activates in the same moments.
      out.activationMs = median(samples.map((a) => a.wallMs));
      out.activationCpuMs = median(samples.map((a) => a.cpuMs));
      out.activationSamples = samples.length;
      const each = samples.map((a) => `${a.session} ${a.wallMs.toFixed(1)} / ${a.cpuMs.toFixed(1)} ms`).join(', ');
      out.activationNote = `from test-results/activation.json${vscode ? ` (VS Code ${vscode})` : ''}, ${new Date(statSync(activation).mtimeMs).toISOString().slice(0, 16).replace('T', ' ')} UTC: the median of ${samples.length} extension-host session${samples.length === 1 ? '' : 's'} of one run of npm run test:vscode (wall / CPU: ${each})`;
    }
  }
  if (out.activationMs === undefined) out.activationNote = 'not measured (run npm run test:vscode)';
  return out;
}
