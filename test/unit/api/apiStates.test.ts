/**
 * `api/mcp-tasks.d.ts` restates the task states on purpose (it has no imports, so other extensions
 * can copy it); `core/api/apiMapping.ts` maps the view's states onto it. These tests fail when the
 * two lists drift apart: a state added to one side only, or a state the mapping never produces.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { apiState } from '../../../src/core/api/apiMapping.js';
import type { TaskViewState } from '../../../src/core/view/taskView.js';

const ROOT = new URL('../../../', import.meta.url);

/** The string literals of `export type <name> = 'a' | 'b' | …` in a TypeScript file (comments ignored). */
function unionMembers(relativePath: string, typeName: string): string[] {
  const file = fileURLToPath(new URL(relativePath, ROOT));
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === typeName);
  assert.ok(alias, `${relativePath} declares type ${typeName}`);
  const parts = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
  return parts.map((t) => {
    assert.ok(ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal), `${relativePath}: every member of ${typeName} is a string literal (found ${t.getText(source)})`);
    return t.literal.text;
  });
}

describe('the API task states stay in step with the core (api/mcp-tasks.d.ts vs core/view/taskViewItem.ts)', () => {
  const apiStates = unionMembers('api/mcp-tasks.d.ts', 'McpTaskState');
  const coreStates = unionMembers('src/core/view/taskViewItem.ts', 'TaskViewState') as TaskViewState[];

  test('both lists are read (no duplicates)', () => {
    assert.ok(apiStates.length >= 5 && coreStates.length >= 5, `read ${apiStates.length} API and ${coreStates.length} core states`);
    assert.equal(new Set(apiStates).size, apiStates.length, 'McpTaskState has no duplicate member');
    assert.equal(new Set(coreStates).size, coreStates.length, 'TaskViewState has no duplicate member');
  });

  test('every core state maps to a state the .d.ts declares', () => {
    const declared = new Set(apiStates);
    const missing = coreStates.filter((s) => !declared.has(apiState(s))).map((s) => `${s} → ${apiState(s)}`);
    assert.deepEqual(missing, [], 'core states whose API state is missing from McpTaskState');
  });

  test('every state the .d.ts declares is produced by some core state', () => {
    const produced = new Set(coreStates.map(apiState));
    assert.deepEqual(apiStates.filter((s) => !produced.has(s as never)), [], 'McpTaskState members no core state maps to');
  });

  test('the core states the API renames are exactly the two "needs input" ones and a plain call running (still "sending" there)', () => {
    const renamed = coreStates.filter((s) => apiState(s) !== s).sort();
    assert.deepEqual(renamed, ['inputRequired', 'running', 'waitingForUser']);
    assert.equal(apiState('running'), 'sending');
  });
});
