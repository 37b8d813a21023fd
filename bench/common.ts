/** Shared pieces of the benchmark hosts. */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerDefinition } from '../src/core/config/config.js';

/** The repository root (the bench bundle lives in dist/bench/). */
export const ROOT = resolve(__dirname, '..', '..');
/** Bundled child-process servers, next to this bundle. */
export const RECEIVER_SERVER_JS = resolve(__dirname, 'receiverServerMain.js');
export const REQUESTOR_SERVER_JS = resolve(__dirname, 'requestorServerMain.js');

/**
 * The deterministic sampler both receivers use: answers at once with a 128-character text that
 * depends on the question (a fresh flat string per request, like a real model's answer).
 */
export function sampleAnswer(params: CreateMessageRequest['params']): CreateMessageResult {
  const last = params.messages[params.messages.length - 1];
  const question = last && !Array.isArray(last.content) && last.content.type === 'text' ? last.content.text : '';
  return {
    model: 'bench-model',
    role: 'assistant',
    content: { type: 'text', text: createHash('sha512').update(question).digest('hex') },
    stopReason: 'endTurn',
  };
}

/** A stdio server definition as the extension would build it from mcp.json. */
export function stdioServer(id: string, script: string, nodeArgs: readonly string[] = []): ServerDefinition {
  return {
    id,
    name: id,
    source: { kind: 'user', file: 'bench' },
    transport: { type: 'stdio', command: process.execPath, args: [...nodeArgs, script], env: {} },
    inputs: [],
  };
}

/** The whole environment, as `McpConnection` passes it to stdio servers (so both sides spawn alike). */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/**
 * Runs a bench program in a node process of its own and resolves with the JSON on the last line it
 * printed. `label` names it in an error, which quotes the end of its stderr; `forwardStderr`: its
 * progress lines are also shown here as they come.
 */
export function jsonOfChild<T>(label: string, args: readonly string[], options: { readonly env?: NodeJS.ProcessEnv; readonly forwardStderr?: boolean } = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-8192);
      if (options.forwardStderr) process.stderr.write(d);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`${label} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as T);
      } catch (e) {
        reject(new Error(`${label} printed no figures (${String(e)}): ${last.slice(0, 200)}`));
      }
    });
  });
}

/** Text of the first content block of a tool result, parsed as JSON. */
export function toolJson<T>(result: unknown): T {
  const c = (result as { content?: Array<{ type: string; text?: string }>; isError?: boolean }).content ?? [];
  const text = c.find((x) => x.type === 'text')?.text ?? '';
  if ((result as { isError?: boolean }).isError) throw new Error(`tool failed: ${text}`);
  return JSON.parse(text) as T;
}

/** Resolves once `check()` holds (polled every `everyMs`); rejects after `ms`. */
export async function until(check: () => boolean, what: string, ms = 60_000, everyMs = 2): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

/** {@link envInt} that also takes 0 (a count that can be switched off). */
export function envCount(name: string, fallback: number): number {
  return process.env[name]?.trim() === '0' ? 0 : envInt(name, fallback);
}
