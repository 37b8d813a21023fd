/**
 * package.json contributions for a new user and for chat: the walkthrough (steps, media files, completion events
 * and command links that exist) and the language-model tools, with every `%key%` resolved by
 * package.nls.json.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Commands, ContextKeys, Views } from '../../src/ui/commands/commandIds.js';
import { ROOT } from '../helpers/host.js';

interface Step { id: string; title: string; description: string; media: { markdown?: string; image?: string }; completionEvents: string[] }
const raw = readFileSync(join(ROOT, 'package.json'), 'utf8');
const manifest = JSON.parse(raw) as {
  contributes: {
    commands: Array<{ command: string }>;
    walkthroughs: Array<{ id: string; title: string; description: string; steps: Step[] }>;
    languageModelTools: Array<{ name: string; toolReferenceName: string; displayName: string; userDescription: string; modelDescription: string }>;
  };
};
const nls = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
const t = (s: string) => s.replace(/^%(.+)%$/, (_m, k: string) => nls[k] ?? assert.fail(`package.nls.json has no "${k}"`));
const commands = new Set(manifest.contributes.commands.map((c) => c.command));
/** Commands of VS Code itself a step may link to. */
const WORKBENCH_COMMANDS = new Set(['workbench.action.chat.open']);

describe('package.json: the walkthrough', () => {
  const [walkthrough, ...others] = manifest.contributes.walkthroughs;

  test('one walkthrough covering the first minutes: add a server, run a tool as a task, answer a request, find the result', () => {
    assert.equal(others.length, 0);
    assert.equal(t(walkthrough!.title), 'Get Started with MCP Tasks');
    assert.deepEqual(walkthrough!.steps.map((s) => s.id), ['addServer', 'runTool', 'respond', 'findResult', 'chat']);
  });

  test('each step has a title, a description with a command link, a markdown file that exists (with its images) and completion events', () => {
    for (const step of walkthrough!.steps) {
      assert.ok(t(step.title).length > 0, step.id);
      const links = [...t(step.description).matchAll(/\]\(command:([\w.]+)\)/g)].map((m) => m[1]!);
      assert.ok(links.length > 0, `${step.id} has a button`);
      for (const c of links) assert.ok(commands.has(c) || WORKBENCH_COMMANDS.has(c), `${step.id} links to a contributed command: ${c}`);
      const md = step.media.markdown!;
      assert.ok(md && existsSync(join(ROOT, md)), `${step.id}: ${md} exists`);
      for (const m of readFileSync(join(ROOT, md), 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) {
        assert.ok(existsSync(join(ROOT, dirname(md), m[1]!)), `${md}: image ${m[1]} exists`);
      }
      assert.ok(step.completionEvents.length > 0, `${step.id} can be completed`);
      for (const e of step.completionEvents) {
        const [kind, arg] = [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1)];
        if (kind === 'onCommand') assert.ok(commands.has(arg) || WORKBENCH_COMMANDS.has(arg), `${step.id}: ${e}`);
        else if (kind === 'onContext') assert.ok((Object.values(ContextKeys) as string[]).includes(arg), `${step.id}: ${e}`);
        else if (kind === 'onView') assert.ok((Object.values(Views) as string[]).includes(arg), `${step.id}: ${e}`);
        else assert.fail(`${step.id}: unexpected completion event ${e}`);
      }
    }
    const byId = new Map(walkthrough!.steps.map((s) => [s.id, s.completionEvents]));
    assert.ok(byId.get('addServer')!.includes(`onCommand:${Commands.addServer}`));
    assert.ok(byId.get('runTool')!.includes(`onCommand:${Commands.runTool}`));
    assert.ok(byId.get('respond')!.includes(`onCommand:${Commands.respond}`));
    assert.ok(byId.get('findResult')!.includes(`onCommand:${Commands.retrieveResult}`));
  });

  test('the walkthrough files and package.nls.json go into the .vsix', () => {
    const ignore = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    for (const line of ['!package.nls.json', '!media/walkthrough/*.md', '!media/screenshots/received-waiting.png', '!media/screenshots/result-document.png']) assert.ok(ignore.includes(line), line);
  });
});

describe('package.json: the language-model tools and package.nls.json', () => {
  test('each tool has a user-facing name and description (localised) and a model description', () => {
    for (const tool of manifest.contributes.languageModelTools) {
      assert.match(tool.name, /^mcpTasks_\w+$/);
      assert.match(tool.toolReferenceName, /^mcpTasks\w+$/);
      assert.ok(t(tool.displayName).length > 0 && t(tool.userDescription).length > 0, tool.name);
      assert.doesNotMatch(tool.modelDescription, /^%/, 'model descriptions stay English, for the model');
    }
  });

  test('every %key% in package.json is in package.nls.json, and every key there is used', () => {
    const used = new Set([...raw.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!));
    for (const k of used) assert.ok(k in nls, `package.nls.json lacks "${k}"`);
    for (const k of Object.keys(nls)) assert.ok(used.has(k), `package.nls.json key "${k}" is not used`);
  });
});
