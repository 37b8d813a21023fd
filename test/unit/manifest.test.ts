import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> }; commands: Array<{ command: string; title: string }> };
};

const nls = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.nls.json'), 'utf8')) as Record<string, string>;
/** A manifest string as VS Code shows it: `%key%` looked up in package.nls.json. */
const localized = (s: string): string | undefined => (/^%(.+)%$/.test(s) ? nls[s.slice(1, -1)] : s);

/**
 * Settings that define what runs or what is sent, and those that set a limit, a consent
 * or how a server's request reaches the user — that is, every setting: never settable by a workspace.
 */
const GUARDED = Object.keys(manifest.contributes.configuration.properties);

describe('package.json: settings a workspace must not set', () => {
  test('each is application-scoped (user settings only) and a restricted configuration', () => {
    const props = manifest.contributes.configuration.properties;
    assert.ok(GUARDED.includes('mcpTasks.sampling.modelByServer') && GUARDED.includes('mcpTasks.receiver.operationsPerSecond') && GUARDED.includes('mcpTasks.prompts.open'));
    for (const key of GUARDED) assert.equal(props[key]?.scope, 'application', key);
    assert.deepEqual([...(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [])].sort(), [...GUARDED].sort());
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  test('the consent and input commands are contributed', () => {
    const titles = new Map(manifest.contributes.commands.map((c) => [c.command, localized(c.title)]));
    assert.equal(titles.get('mcpTasks.revokeSamplingConsent'), 'Revoke Remembered Consent…');
    assert.equal(titles.get('mcpTasks.clearStoredInputs'), 'Clear Stored Inputs');
  });
});

describe('package.json: user-visible strings are localizable (package.nls.json)', () => {
  test('every command title and setting description is a %key% with an English string', () => {
    const raw = manifest as unknown as { contributes: { commands: Array<{ command: string; title: string; category?: string }>; configuration: { properties: Record<string, { description?: string; markdownDescription?: string }> } } };
    for (const c of raw.contributes.commands) {
      assert.match(c.title, /^%.+%$/, `${c.command} title`);
      assert.ok(localized(c.title), `${c.command}: ${c.title} is in package.nls.json`);
      if (c.category) assert.ok(localized(c.category), `${c.command} category`);
    }
    for (const [key, p] of Object.entries(raw.contributes.configuration.properties)) {
      const text = p.markdownDescription ?? p.description;
      assert.ok(text && /^%.+%$/.test(text) && localized(text), `${key} description is a %key% in package.nls.json`);
    }
  });
});
