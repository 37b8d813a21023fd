/**
 * A received task's view item carries its request's method, from which src/ui/view/taskTitle.ts names
 * its kind in the user's language ("Sampling", "Elicitation: <the server's message>"): the title
 * the core gives must keep the form that file reads.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { checkLeaks } from '../../helpers/leaks.js';

describe('TaskView: received items name their method (for the localised title)', () => {
  checkLeaks();

  test('sampling and elicitation items carry the method; the elicitation title is "Elicitation: " and the message', async () => {
    const ledger = new TaskLedger();
    const tracker = new TaskTracker({ connectionFor: () => undefined });
    const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
    const scope = ledger.forServer('srv', 'Server');
    const s = await scope.createTask({}, 1, { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
    const e = await scope.createTask({}, 2, { method: 'elicitation/create', params: { message: 'Pick a colour', requestedSchema: {} } });
    const sampling = view.item(`received:srv/${s.taskId}`)!;
    const elicitation = view.item(`received:srv/${e.taskId}`)!;
    assert.equal(sampling.method, 'sampling/createMessage');
    assert.equal(sampling.title, 'Sampling');
    assert.equal(elicitation.method, 'elicitation/create');
    assert.equal(elicitation.title, 'Elicitation: Pick a colour');
    view.dispose();
    tracker.dispose();
    ledger.dispose();
  });
});
