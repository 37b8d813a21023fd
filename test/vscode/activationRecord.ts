// The benchmark's row "startup activate() in VS Code" reads test-results/activation.json. Every
// extension-host session of one run of the suite (the main one, the one after the window reload,
// Restricted Mode) adds its own activate() there, and the row takes their median: one activation
// alone moved from 16 to 103 ms between runs, as other extensions activate in the same moments.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../src/extension';
import { EXTENSION_ID } from './util';

/** One session's activation, as extension.ts timed it. */
export interface ActivationSample {
  readonly session: string;
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** test-results/activation.json: the activations of one run of the suite. */
export interface ActivationRecord {
  readonly vscode: string;
  /** The run the samples belong to (the runner's MCP_TASKS_E2E_RUN); a session of another run starts the file anew. */
  readonly run: string;
  readonly activations: readonly ActivationSample[];
}

/** Adds this session's activate() figures to the run's record. */
export async function recordActivation(session: string): Promise<void> {
  const extension = vscode.extensions.getExtension<McpTasksApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed`);
  const api = await extension.activate();
  const file = path.join(extension.extensionPath, 'test-results', 'activation.json');
  // Without a run id (a runner that sets none), each session stands alone.
  const run = process.env.MCP_TASKS_E2E_RUN ?? `extension host ${process.pid}`;
  const earlier = readRecord(file);
  const sample: ActivationSample = { session, wallMs: api.activationTimeMs, cpuMs: api.activationCpuMs };
  const record: ActivationRecord = { vscode: vscode.version, run, activations: [...(earlier?.run === run ? earlier.activations : []), sample] };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(record, null, 2));
}

/** The record in `file`; undefined when there is none or it is not one (an older format: replaced). */
function readRecord(file: string): ActivationRecord | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ActivationRecord>;
    return typeof value.run === 'string' && Array.isArray(value.activations) ? (value as ActivationRecord) : undefined;
  } catch {
    return undefined;
  }
}
