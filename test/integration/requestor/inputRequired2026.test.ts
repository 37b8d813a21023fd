/**
 * MCP 2026-07-28 multi round-trip requests on plain calls (`input_required` results with
 * `inputRequests`, answered by retrying the call with `inputResponses` and the echoed
 * `requestState`), against the demo server's `--revision 2026-07-28` mode over stdio and
 * Streamable HTTP. The requests reach the host's responders (consent, forms, reply editor in the
 * UI) as direct requests do, each naming the call it came inside (`ctx.sentTask`). What the server
 * saw — its sealed requestState checked on each re-entry, each round's answers, each request's
 * envelope and headers — is read back through its `ext_stats`. Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResponderContext } from '../../../src/core/receiver/wire/responders.js';
import { formLeftOpen, host2026, stdio2026, transports2026, type Stats2026 } from '../../helpers/rev2026.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const TIMEOUT = { timeout: 60_000 };
const transports = transports2026();
/** Servers that do not declare the Tasks extension: every call is sent plainly. */
const plainTransports = transports2026(['--tasks-extension-undeclared']);
after(() => {
  for (const t of [...transports, ...plainTransports]) t.stop();
});

/** Starts write_haiku with its form left open until withdrawn; resolves once the form is open. */
async function formLeftOpenIn(h: Awaited<ReturnType<typeof host2026>>) {
  const form = formLeftOpen(h.responders);
  const call = h.call('write_haiku');
  return { key: await form.opened, withdrawn: form.withdrawn, call };
}

/** The rounds and requestState checks the server saw since `before`. */
function since(before: Stats2026, now: Stats2026) {
  return {
    rounds: now.rounds.slice(before.rounds.length),
    verified: now.requestStates.verified - before.requestStates.verified,
    rejected: now.requestStates.rejected - before.requestStates.rejected,
    requests: now.requests.slice(before.requests.length),
  };
}

describe('requestor: input_required on a plain call (2026-07-28)', () => {
  for (const transport of transports) {
    test(`${transport.name}: a form, then a sampling request of one call reach the responders naming the call; the sealed requestState comes back untouched`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`mrtr-${transport.name}`));
      try {
        const asked: Array<{ kind: string; ctx: ResponderContext; message?: string }> = [];
        h.responders.elicitImpl = async (p, ctx) => {
          asked.push({ kind: 'elicitation', ctx, message: p.message });
          return { action: 'accept', content: { topic: 'autumn rain', mood: 'wistful' } };
        };
        h.responders.sampleImpl = async (p, ctx) => {
          asked.push({ kind: 'sampling', ctx, message: JSON.stringify(p.messages) });
          return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'grey drops on the pond' }, stopReason: 'endTurn' };
        };
        const before = await h.stats();
        const key = await h.call('write_haiku');
        const s = h.tracker.get(key)!;
        assert.equal(s.phase, 'done');
        assert.equal(s.mode, 'plain');
        assert.equal(h.resultText(key), 'A wistful haiku about autumn rain:\n\ngrey drops on the pond');
        assert.deepEqual(asked.map((a) => a.kind), ['elicitation', 'sampling']);
        assert.equal(asked[0]!.message, 'What should the haiku be about?');
        assert.match(asked[1]!.message!, /Write a wistful haiku about autumn rain\./);
        for (const [i, inputKey] of ['topic', 'poem'].entries()) {
          const link = asked[i]!.ctx.sentTask;
          assert.equal(link?.key, key, 'the request names the call it came inside');
          assert.equal(link?.inputKey, inputKey);
          assert.equal(link?.serverId, h.connection.id);
          assert.equal(link?.taskId, undefined, 'a plain call has no task id');
          assert.equal(asked[i]!.ctx.taskId, undefined, 'nor is it a received task');
        }
        const seen = since(before, await h.stats());
        // Two re-entries, each with the state the server sealed: a changed byte would have been refused (-32602).
        assert.equal(seen.verified, 2, 'both echoed requestStates passed the seal');
        assert.equal(seen.rejected, 0);
        assert.deepEqual(seen.rounds, [
          { tool: 'write_haiku', step: 'topic', responses: { topic: 'accept' } },
          { tool: 'write_haiku', step: 'poem', responses: { poem: 'sampling' } },
        ]);
        // Each retry is a request of its own with the per-request envelope (and, over HTTP, the standard headers).
        const calls = seen.requests.filter((r) => r.method === 'tools/call' && r.name === 'write_haiku');
        assert.equal(calls.length, 3, 'the call and its two retries');
        for (const r of calls) {
          assert.equal(r.envelope?.protocolVersion, '2026-07-28');
          assert.equal(r.envelope?.clientName, 'mcp-tasks-vscode');
          if (transport.name === 'http') assert.deepEqual(r.headers, { protocolVersion: '2026-07-28', mcpMethod: 'tools/call', mcpName: 'write_haiku' });
        }
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: one round carrying several requests (two forms and a sampling request) reaches the responders under the same call`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`mrtr-many-${transport.name}`));
      try {
        h.responders.elicitImpl = async (p) => ({ action: 'accept', content: p.message.includes('Name') ? { name: 'lantern' } : { license: 'Apache-2.0' } as Record<string, string> });
        h.responders.sampleImpl = async () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'light for long builds' } });
        const before = await h.stats();
        const key = await h.call('new_project');
        assert.equal(h.resultText(key), 'Project lantern (Apache-2.0): light for long builds');
        const calls = h.responders.calls;
        assert.equal(calls.length, 3);
        assert.deepEqual(calls.map((c) => c.ctx.sentTask?.inputKey).sort(), ['license', 'name', 'tagline']);
        assert.ok(calls.every((c) => c.ctx.sentTask?.key === key), 'all three under the one call');
        assert.deepEqual(calls.map((c) => c.kind).sort(), ['elicitation', 'elicitation', 'sampling']);
        const seen = since(before, await h.stats());
        assert.deepEqual(seen.rounds, [{ tool: 'new_project', step: 'asked', responses: { name: 'accept', license: 'accept', tagline: 'sampling' } }], 'answered together, in one retry');
        assert.equal(seen.verified, 1);
        assert.equal(seen.rejected, 0);
      } finally {
        h.dispose();
      }
    });

    test(`${transport.name}: a declined form and a cancelled one go back to the server as such (action decline / cancel), and the call ends with the server's answer`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`mrtr-decline-${transport.name}`));
      try {
        for (const action of ['decline', 'cancel'] as const) {
          h.responders.elicitImpl = async () => ({ action });
          const before = await h.stats();
          const key = await h.call('write_haiku');
          assert.equal(h.tracker.get(key)?.phase, 'done');
          assert.equal(h.resultText(key), `No haiku: you ${action === 'decline' ? 'declined' : 'cancelled'} the form.`);
          const seen = since(before, await h.stats());
          assert.deepEqual(seen.rounds, [{ tool: 'write_haiku', step: 'topic', responses: { topic: action } }]);
          assert.equal(seen.verified, 1, 'the refusal came back with the sealed requestState too');
        }
        assert.equal(h.responders.calls.filter((c) => c.kind === 'sampling').length, 0, 'no sampling after a refused form');
      } finally {
        h.dispose();
      }
    });
  }

  test('stdio: a server that leaves resultType out still works: its results are complete (said once in the log)', TIMEOUT, async () => {
    const h = await host2026(stdio2026('mrtr-no-result-type', ['--omit-result-type']));
    try {
      h.responders.elicitImpl = async () => ({ action: 'accept', content: { topic: 'frost', mood: 'calm' } });
      h.responders.sampleImpl = async () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'white grass at dawn' } });
      const echo = await h.call('ext_echo', { text: 'plain' });
      assert.equal(h.resultText(echo), 'echo: plain');
      // input_required results keep their resultType; the final one of the flow has none.
      const haiku = await h.call('write_haiku');
      assert.equal(h.resultText(haiku), 'A calm haiku about frost:\n\nwhite grass at dawn');
      const traced = h.log.lines.filter((l) => l.startsWith('trace ◀') && l.includes('"echo: plain"'));
      assert.ok(traced.length === 1 && !traced[0]!.includes('resultType'), `the server sent no resultType: ${traced.join('\n')}`);
      const said = h.log.lines.filter((l) => l.includes('without "resultType"'));
      assert.equal(said.length, 1, `said once: ${said.join('\n')}`);
    } finally {
      h.dispose();
    }
  });

  for (const transport of plainTransports) {
    test(`${transport.name}: a request a responder is still answering when its plain call is cancelled is withdrawn (its signal aborts); the call ends cancelled`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`mrtr-cancel-${transport.name}`));
      try {
        const { key, withdrawn, call } = await formLeftOpenIn(h);
        assert.equal(h.tracker.get(key)?.mode, 'plain', 'the server does not declare the Tasks extension');
        await h.tracker.cancel(key);
        await call;
        assert.ok(withdrawn(), "the responder's signal aborted");
        const s = h.tracker.get(key)!;
        assert.equal(s.phase, 'done');
        assert.equal(s.outcome?.kind, 'error');
        assert.equal(s.cancelledByUser, true);
      } finally {
        h.dispose();
      }
    });
  }

  for (const transport of plainTransports) {
    test(`${transport.name}: calls made one after another (their signals used again, requestScope.ts) stay apart: a Cancel ends only the call it is for, and the next call completes`, TIMEOUT, async () => {
      const h = await host2026(await transport.def(`mrtr-reuse-${transport.name}`));
      try {
        const earlier = [];
        for (const text of ['one', 'two', 'three']) earlier.push(await h.call('ext_echo', { text }));
        const { key, withdrawn, call } = await formLeftOpenIn(h);
        await h.tracker.cancel(key);
        await call;
        assert.ok(withdrawn(), "the open call's responder signal aborted");
        assert.equal(h.tracker.get(key)?.cancelledByUser, true);
        const after = await h.call('ext_echo', { text: 'after' });
        assert.equal(h.resultText(after), 'echo: after', 'the call after the cancelled one is not born aborted');
        assert.deepEqual(
          earlier.map((k) => [h.tracker.get(k)?.phase, h.tracker.get(k)?.cancelledByUser, h.resultText(k)]),
          [
            ['done', undefined, 'echo: one'],
            ['done', undefined, 'echo: two'],
            ['done', undefined, 'echo: three'],
          ],
          'the earlier calls keep their results; none is marked cancelled',
        );
      } finally {
        h.dispose();
      }
    });
  }

  for (const transport of transports) {
    test(
      `${transport.name}: on a Tasks extension server, a call whose form is open is withdrawn by one Cancel`,
      TIMEOUT,
      async () => {
        const h = await host2026(await transport.def(`mrtr-cancel-once-${transport.name}`));
        try {
          const { key, withdrawn, call } = await formLeftOpenIn(h);
          // The call's row says what it waits on in the host's words, not the SDK's.
          assert.equal(h.tracker.get(key)?.progress?.message, 'asks for input (round 1)');
          await Promise.all([h.tracker.cancel(key), call]);
          assert.ok(withdrawn(), "the responder's signal aborted");
          const s = h.tracker.get(key)!;
          assert.equal(s.phase, 'error');
          assert.match(s.reason ?? '', /^Cancelled while ".*" waited for your answer: the call was abandoned before it became a task\.$/);
        } finally {
          h.dispose();
        }
      },
    );
  }
});
