import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { answered, generatingWith, LOCAL_UI_WORDS, SERVER_STATUS_MESSAGES } from '../../../src/core/forms/statusMessages.js';

// The statusMessage a server reads for a task it sent us describes the task's
// state in the server's terms; local hints ("open it with Respond") stay in this host's UI.
describe('statusMessage reported to servers for received tasks', () => {
  test('names the state, never this host’s UI', () => {
    for (const m of [...SERVER_STATUS_MESSAGES, answered('accept'), generatingWith('GPT-4o')]) {
      assert.doesNotMatch(m, LOCAL_UI_WORDS, m);
    }
    assert.equal(SERVER_STATUS_MESSAGES[0], "Waiting for the user's input");
  });

  test('the responders pass only these messages to setWaitingForUser (no literal UI text)', () => {
    const ui = join(__dirname, '..', '..', '..', 'src', 'ui');
    const files = (readdirSync(ui, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts'));
    let calls = 0;
    for (const file of files) {
      const text = readFileSync(join(ui, file), 'utf8');
      for (const call of text.matchAll(/setWaitingForUser\(([^)]*)\)/g)) {
        calls++;
        assert.doesNotMatch(call[1]!, /['"`]/, `${file}: setWaitingForUser(${call[1]}) must use src/core/forms/statusMessages.ts`);
      }
    }
    // src/ui's parts are folders: a read that found no call (a flat readdir) would prove nothing.
    assert.ok(calls > 0, 'no setWaitingForUser call found under src/ui');
  });
});
