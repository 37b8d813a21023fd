import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeHost, stdioDefinition, TSX, ROOT, textOf } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

test('smoke: connect to the probe over stdio and receive a task-augmented sampling request', async () => {
  const h = makeHost(stdioDefinition('probe', TSX, [`${ROOT}/test/fixtures/probeServer.ts`]));
  try {
    await h.connection.start();
    const r = await h.connection.client.callTool({ name: 'probe', arguments: { steps: [
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10, task: { ttl: 60000 } } },
    ] } });
    const answers = JSON.parse(textOf(r));
    console.log(JSON.stringify(answers));
    assert.equal(answers[0].result.task.status, 'working');
  } finally {
    h.dispose();
  }
});
