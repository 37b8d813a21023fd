/**
 * The UI classes that register things own them (src/core/base/lifecycle.ts `Disposable`,
 * `_register`): once one is disposed, it listens to nothing of the core's (each source emitter
 * has no listener left) and holds nothing of VS Code's (no subscription, status-bar item,
 * command or file watcher: test/helpers/vscodeFake.ts `fake.held()`). The leak check
 * (test/helpers/leaks.ts) fails a test that leaves the class or a core subscription undisposed.
 * The sources are disposed only after the check, so their own disposal cannot hide a
 * subscription the class forgot.
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/base/event.js';
import type { ServerRegistry } from '../../../src/core/connection/registry.js';
import type { TaskView } from '../../../src/core/view/taskView.js';
import { TasksTreeProvider } from '../../../src/ui/view/tasksTree.js';
import { UntrustedServersSignal } from '../../../src/ui/view/trustSignal.js';
import { ServerErrorSignals } from '../../../src/ui/servers/serverErrors.js';
import { ServerConfigSource } from '../../../src/ui/servers/serverConfig.js';
import { TaskDocumentProvider } from '../../../src/ui/documents/resultDocuments.js';
import { ReplyEditors } from '../../../src/ui/prompts/replyEditor.js';
import { fake } from '../../helpers/vscodeFake.js';
import { checkLeaks } from '../../helpers/leaks.js';

/** The core events a UI class listens to: a registry's, a view's, a trust grant. */
function sources() {
  const emitters = { state: new Emitter<never>(), connections: new Emitter<void>(), view: new Emitter<void>(), trust: new Emitter<void>() };
  const registry = { connections: [], get: () => undefined, onDidChangeState: emitters.state.event, onDidChangeConnections: emitters.connections.event } as unknown as ServerRegistry;
  const view = { onDidChange: emitters.view.event, serverIds: () => [], group: () => [], counts: () => ({ active: 0, waiting: 0 }), items: () => [] } as unknown as TaskView;
  return {
    registry,
    view,
    onDidGrantTrust: emitters.trust.event,
    /** The sources that still have a listener. */
    listened: () => Object.entries(emitters).filter(([, e]) => e.hasListeners).map(([name]) => name),
    dispose: () => Object.values(emitters).forEach((e) => e.dispose()),
  };
}

const owners: Array<[string, (s: ReturnType<typeof sources>) => { dispose(): void }]> = [
  ['the Tasks tree', (s) => new TasksTreeProvider(s.registry, s.view)],
  ['the untrusted-servers signal', (s) => new UntrustedServersSignal(s.registry, { isTrusted: () => false, onDidGrantTrust: s.onDidGrantTrust })],
  ['the server-error signals', (s) => new ServerErrorSignals({ registry: s.registry, showLog: () => undefined })],
  ['the server configuration', () => new ServerConfigSource({} as never)],
  ['the task documents', (s) => new TaskDocumentProvider(s.view)],
  ['the reply editors', () => new ReplyEditors({} as never)],
];

describe('a UI class owns what it registers', () => {
  checkLeaks();

  for (const [name, make] of owners) {
    test(`${name}: disposed, it listens to nothing and holds nothing of VS Code's`, () => {
      const s = sources();
      const heldBefore = fake.held().length;
      const owner = make(s);
      assert.ok(s.listened().length > 0 || fake.held().length > heldBefore, 'it registered something (else this test proves nothing)');
      owner.dispose();
      assert.deepEqual(s.listened(), [], 'core sources still listened to');
      assert.deepEqual(fake.held().slice(heldBefore), [], "VS Code's things still held");
      // The sources go with the test (before the leak check), once the class was checked without them.
      s.dispose();
    });
  }
});
