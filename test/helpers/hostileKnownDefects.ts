/**
 * Hostile-server attacks that showed defects of the receiver, the requestor and the display, each
 * fixed on a branch of its own (sec-receiver, sec-requestor, sec-display): a spec with `fixedOn` is a
 * `todo` test until that branch is merged; then `fixedOn` is removed and it is a plain test. All three
 * are merged on main: none is todo.
 */
import { createRequire } from 'node:module';
import type { TaskOutcome } from '../../src/core/receiver/ledger.js';
import { Emitter } from '../../src/core/base/event.js';
import { renderTaskDocument } from '../../src/core/view/render.js';
import { TaskView } from '../../src/core/view/taskView.js';
import { WAIT_MS } from './hostileEnv.js';
import { check, type Answer, type AttackSpec } from './hostileRun.js';
import { textOf, waitFor } from './host.js';

// markdown-it comes with @vscode/vsce (a dev dependency): the engine of VS Code's Markdown preview.
type MarkdownIt = { render(src: string): string; validateLink: (url: string) => boolean };
const MarkdownItCtor = createRequire(__filename)('markdown-it') as new (options: object) => MarkdownIt;
const markdownIt = new MarkdownItCtor({ html: true, linkify: true });
markdownIt.validateLink = () => true;

const HOSTILE_TEXT = '[click me](command:workbench.action.openSettings) <img src=x onerror=alert(1)> <script>alert(1)</script>';

export const KNOWN_DEFECT_SPECS: readonly AttackSpec[] = [
  {
    name: 'cancel-before-task-id',
    what: 'the CreateTaskResult is held back 1.5 s while the user presses Cancel',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const sending = new Promise<string>((resolve) => {
        const sub = env.tracker.onDidChange((c) => {
          if (c.key.startsWith('hostile/call-') && env.tracker.get(c.key)?.phase === 'sending') {
            sub.dispose();
            resolve(c.key);
          }
        });
      });
      const call = env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { never: true, createDelayMs: 1500, pollInterval: 50 });
      const tempKey = await sending;
      ctx.data.cancelled = await env.tracker.cancel(tempKey);
      ctx.data.key = await call;
      ctx.end();
    },
    async verify({ env, data }) {
      const key = data.key as string;
      const early = data.cancelled as { reason?: string };
      let s = env.tracker.get(key);
      try {
        s = await env.untilSent(key, (x) => x.task?.status === 'cancelled' || (x.phase !== 'tracking' && x.phase !== 'sending'), 'the task to be cancelled', 8_000);
      } catch {
        /* still running on the server: reported by the checks */
      }
      const stats = await env.hostileStats();
      return {
        outcome: `${early.reason ? `Cancel said "${early.reason.slice(0, 50)}"; ` : ''}server saw ${stats.cancels} tasks/cancel; task ${s?.phase}/${s?.task?.status}`,
        checks: [
          check('Cancel does not claim the task already finished', !/already/i.test(early.reason ?? ''), early.reason),
          check(
            'the task is cancelled on the server once its id is known (or the request is aborted, and the user told so)',
            (stats.cancels >= 1 && s?.task?.status === 'cancelled') || (!!s && s.phase !== 'tracking' && s.phase !== 'sending' && /cancel/i.test(s.reason ?? '')),
            { cancels: stats.cancels, phase: s?.phase, status: s?.task?.status, reason: s?.reason },
          ),
        ],
      };
    },
  },
  {
    name: 'result-only-waiter',
    what: 'one task-augmented sampling, then only a blocking tasks/result (pollIntervalMs 20, 10 operations/s, burst 10)',
    transports: ['stdio', 'http'],
    options: { limits: { pollIntervalMs: 20, operationsPerSecond: 10, operationsBurst: 10 } },
    async attack(ctx) {
      const { env } = ctx;
      // Count the SDK's reads of the task while tasks/result waits; release after 40 of them.
      const scope = env.hostileTasks;
      const original = scope.getTask.bind(scope);
      let reads = 0;
      const onRead = new Emitter<void>();
      try {
        scope.getTask = async (...a: Parameters<typeof scope.getTask>) => {
          reads++;
          onRead.fire();
          return original(...a);
        };
        // The tasks/result request arriving is admitted once (the one wire request it is).
        const originalAdmit = scope.admit.bind(scope);
        let resultArrived = false;
        scope.admit = (...a: Parameters<typeof scope.admit>) => {
          if (a[0] === 'tasks/result') {
            resultArrived = true;
            onRead.fire();
          }
          return originalAdmit(...a);
        };
        let answered = false;
        const answer = env.attack('result-only', {}, 120_000).finally(() => {
          answered = true;
          onRead.fire();
        });
        await waitFor(onRead.event, () => resultArrived || answered, 'tasks/result to arrive', WAIT_MS);
        // A polling wait reads the store every pollIntervalMs: give it 40 reads to run out of
        // budget. A wait that does not poll (a fix may wait on events) never gets there: after 3 s
        // it is released anyway; that bound is not a sleep the result depends on.
        await waitFor(onRead.event, () => reads >= 40 || answered, '40 internal reads', 3_000).catch(() => undefined);
        env.hostileResponders.releaseAll();
        ctx.data.answer = JSON.parse(await answer);
        ctx.data.reads = reads;
      } finally {
        // Fired by the overrides above after this too: a disposed emitter ignores it.
        onRead.dispose();
      }
    },
    async verify({ env, data }) {
      const a = data.answer as { answer?: Answer };
      const leaks = env.warnings.filter((w) => /MaxListeners/.test(w));
      return {
        outcome: a.answer?.result ? `result after ${String(data.reads)} internal reads` : `tasks/result failed: ${a.answer?.error?.code} ${a.answer?.error?.message?.slice(0, 60)}`,
        checks: [
          check('waiting on tasks/result never costs the server budget: the result arrives', !!a.answer?.result, a),
          check('no listener is added per internal poll (no MaxListenersExceededWarning)', leaks.length === 0, leaks),
        ],
      };
    },
  },
  {
    name: 'cancel-answers-32602',
    what: 'tasks/cancel answered with -32602 (and command-link text) while the task still runs',
    transports: ['stdio', 'http'],
    options: { flags: ['--cancel-invalid'] },
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { never: true, pollInterval: 600_000 });
      await env.untilSent(key, (s) => s.phase === 'tracking', 'tracking');
      ctx.data.before = (await env.hostileStats()).gets;
      ctx.data.snapshot = await env.tracker.cancel(key);
      ctx.end();
      ctx.data.after = (await env.hostileStats()).gets;
    },
    async verify({ data }) {
      const s = data.snapshot as { reason?: string };
      return {
        outcome: `reason "${String(s.reason).slice(0, 70)}…"; tasks/get ${String(data.before)} → ${String(data.after)}`,
        checks: [
          check('the user is told the server could not cancel it', /could not cancel/i.test(s.reason ?? ''), s.reason),
          check('no extra tasks/get after a -32602 to tasks/cancel', data.after === data.before, { before: data.before, after: data.after }),
        ],
      };
    },
  },
  {
    name: 'result-network-drop',
    what: 'the connection of the first tasks/result is dropped (network error) after the task completed',
    transports: ['http'],
    options: { flags: ['--drop-result'] },
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { ms: 30, pollInterval: 30 });
      ctx.data.key = key;
      await env.untilSent(key, (s) => s.task?.status === 'completed' || s.phase !== 'tracking', 'the task to complete');
      ctx.end();
    },
    async verify({ env, data }) {
      const key = data.key as string;
      let s = env.tracker.get(key)!;
      try {
        s = await env.untilSent(key, (x) => x.phase === 'done', 'the result to be fetched again', 8_000);
      } catch {
        /* stranded: reported by the check */
      }
      const stats = await env.hostileStats();
      return {
        outcome: `dropped ${stats.droppedResults}, tasks/result sent ${stats.results + stats.droppedResults}; task ${s.phase}`,
        checks: [
          check('the first tasks/result was really dropped', stats.droppedResults === 1, stats),
          check('tasks/result is retried and the result arrives', s.phase === 'done' && s.outcome?.kind === 'result', s),
        ],
      };
    },
  },
  {
    name: 'command-link-text',
    what: 'a task that fails with `[x](command:…)`, <img onerror> and <script> as its text and statusMessage',
    transports: ['stdio'],
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { failWith: HOSTILE_TEXT, pollInterval: 20 });
      ctx.data.key = key;
      await env.untilSent(key, (s) => s.phase === 'done', 'the failed task');
    },
    async verify({ env, data }) {
      const view = new TaskView(env.ledger, env.tracker);
      try {
        const item = view.items().find((i) => i.direction === 'sent' && i.key === data.key);
        const doc = item ? renderTaskDocument(item) : '';
        const outcome = item?.outcome as TaskOutcome | undefined;
        const delivered = outcome?.kind === 'result' && textOf(outcome.result).includes('](command:');
        // Rendered as VS Code's Markdown preview would (markdown-it, HTML and linkify on, every link target allowed).
        const html = doc ? markdownIt.render(doc) : '';
        const live = /<a\s[^>]*href="command:/i.test(html) || /<(img|script)\b/i.test(html);
        return {
          outcome: `server text reached the task (${delivered ? 'verbatim' : 'changed'}); rendered document ${live ? 'has a live command link or HTML' : 'shows it as text'}`,
          checks: [
            check('the hostile text reaches the task as data', delivered, outcome),
            check('the rendered task has no live command: link and no raw HTML', doc !== '' && !live, html.split('\n').filter((l) => /command:|<img|<script/.test(l))),
          ],
        };
      } finally {
        view.dispose();
      }
    },
  },
];
