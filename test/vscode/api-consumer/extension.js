// Test-only consumer of the MCP Tasks API (installed as a .vsix by scripts/vscode-offline.mjs; not
// part of the MCP Tasks extension). It uses only what api/mcp-tasks.d.ts documents: activate the
// extension, check `version`, `getApi(own id)`, then createTask / watchTasks / handles.
// Plain CommonJS so the runner can package it without a build step.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS extension, packaged without a build
const vscode = require('vscode');

/** @type {{ api: any, handles: Record<string, any>, startOrder: string[], watched: Array<{kind: string, uri: string, state: string}>, waiters: Set<() => void>, states: Record<string, string[]>, progress: Record<string, number> } | undefined} */
let run;

async function getApi(context) {
  const ext = vscode.extensions.getExtension('mcp-tasks.mcp-tasks');
  if (!ext) throw new Error('MCP Tasks is not installed');
  const exported = await ext.activate();
  if (!exported || exported.version !== 1 || typeof exported.getApi !== 'function') throw new Error('MCP Tasks API version 1 not available');
  return exported.getApi(context.extension.id);
}

function activate(context) {
  return {
    /** Creates the blocking task, then four more behind it (queued when the limit is 1). Returns their URIs and first states. */
    async queueUp(server) {
      const api = await getApi(context);
      context.subscriptions.push(api);
      run = { api, handles: {}, startOrder: [], watched: [], waiters: new Set(), states: {}, progress: {} };
      const r = run;
      context.subscriptions.push(
        api.watchTasks(
          (c) => {
            r.watched.push({ kind: c.kind, uri: c.task.uri, state: c.task.state });
            for (const w of [...r.waiters]) w();
          },
          { mine: true, server },
        ),
      );
      const create = async (label, name, args, priority, hint) => {
        const h = await api.createTask({ server, method: 'tools/call', params: { name, arguments: args }, priority, hint });
        r.handles[label] = h;
        r.states[label] = [h.snapshot().state];
        h.onDidChange((s) => {
          const seen = r.states[label];
          if (seen[seen.length - 1] !== s.state) seen.push(s.state);
          if (seen.includes('queued') && s.state !== 'queued' && s.state !== 'cancelled' && !r.startOrder.includes(label)) r.startOrder.push(label);
        });
        h.onDidProgress(() => (r.progress[label] = (r.progress[label] ?? 0) + 1));
        return h;
      };
      // Runs until finish() cancels it (1000 steps of 100 ms), so the others stay queued meanwhile.
      await create('blocker', 'long_build', { steps: 1000, stepMs: 100 }, 'normal', { estimatedDurationMs: 100_000, supportsProgress: true, cancellable: true });
      await create('low', 'quick_echo', { text: 'low', delayMs: 10 }, 'low');
      await create('urgent', 'quick_echo', { text: 'urgent', delayMs: 10 }, 'urgent');
      await create('doomed', 'quick_echo', { text: 'never sent', delayMs: 10 }, 'high');
      await create('failing', 'flaky_job', { delayMs: 50, reason: 'consumer test failure' }, 'high');
      return Object.fromEntries(Object.entries(r.handles).map(([label, h]) => [label, { uri: h.uri, state: h.snapshot().state, priority: h.snapshot().priority }]));
    },

    /** The changes its watcher saw so far. */
    watched() {
      return run ? [...run.watched] : [];
    },

    /** Resolves with the watched changes once `check(changes)` holds (checked on each change); rejects after `ms`. */
    whenWatched(check, ms) {
      const r = run;
      if (!r) return Promise.reject(new Error('queueUp first'));
      return new Promise((resolve, reject) => {
        const done = () => {
          if (!check([...r.watched])) return;
          clearTimeout(timer);
          r.waiters.delete(done);
          resolve([...r.watched]);
        };
        const timer = setTimeout(() => {
          r.waiters.delete(done);
          reject(new Error(`timed out; watched: ${JSON.stringify(r.watched.map((w) => `${w.kind}:${w.state}:${w.uri.slice(-6)}`))}`));
        }, ms);
        r.waiters.add(done);
        done();
      });
    },

    /** Cancels the queued high-priority task, then (after its first progress) the blocker; waits for every result; reports. */
    async finish() {
      const r = run;
      if (!r) throw new Error('queueUp first');
      const cancelled = await r.handles.doomed.cancel();
      // The blocker reports progress; then it is cancelled (tasks/cancel) and the queue moves on.
      if (!r.progress.blocker) await new Promise((resolve) => r.handles.blocker.onDidProgress(resolve));
      await r.handles.blocker.cancel();
      const results = {};
      for (const [label, h] of Object.entries(r.handles)) results[label] = await h.result();
      // Handles are capabilities: a second API object with the same label cannot open them.
      const other = await getApi(context);
      let forbidden;
      try {
        other.getTask(r.handles.blocker.uri);
      } catch (e) {
        forbidden = { name: e.name, kind: e.kind, message: e.message };
      }
      const listedByOther = other.listTasks({ direction: 'sent' }).filter((s) => s.uri === r.handles.blocker.uri);
      let invalid;
      try {
        await r.api.createTask({ server: 'demo', method: 'tools/call', params: { name: 'quick_echo' }, priority: 'asap' });
      } catch (e) {
        invalid = { name: e.name, kind: e.kind, message: e.message };
      }
      other.dispose();
      return {
        cancelled: { state: cancelled.state, message: cancelled.message },
        results,
        startOrder: r.startOrder,
        states: r.states,
        progress: r.progress,
        watched: r.watched,
        forbidden,
        listedByOther,
        invalid,
        final: Object.fromEntries(Object.entries(r.handles).map(([label, h]) => [label, h.snapshot().state])),
      };
    },
  };
}

function deactivate() {}

module.exports = { activate, deactivate };
