import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> }; commands: Array<{ command: string; title: string }> };
};

/** Settings that define what runs or what is sent (finding 1): never settable by a workspace. */
const GUARDED = ['mcpTasks.servers', 'mcpTasks.inputs', 'mcpTasks.workspaceServers.firstStart', 'mcpTasks.serverSources'];

describe('package.json: settings a workspace must not set (finding 1)', () => {
  test('each is application-scoped (user settings only) and a restricted configuration', () => {
    const props = manifest.contributes.configuration.properties;
    for (const key of GUARDED) assert.equal(props[key]?.scope, 'application', key);
    assert.deepEqual([...(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [])].sort(), [...GUARDED].sort());
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  test('the consent and input commands are contributed', () => {
    const titles = new Map(manifest.contributes.commands.map((c) => [c.command, c.title]));
    assert.equal(titles.get('mcpTasks.revokeSamplingConsent'), 'Revoke Remembered Consent…');
    assert.equal(titles.get('mcpTasks.clearStoredInputs'), 'Clear Stored Inputs');
  });
});
