/**
 * Import first (before anything that imports `vscode`): resolves `vscode` to the plain classes of
 * test/helpers/vscodeClasses.ts and the recording window/commands of ./vscodeFake.ts, so the real Tasks tree
 * provider (src/ui/view/tasksTree.ts), prompt queue and notifications run in plain Node.
 * The tests run as CommonJS under tsx, so the hook is on the CommonJS resolver.
 */
import Module from 'node:module';
import { join } from 'node:path';

const STUB = join(__dirname, 'vscodeFake.ts');
const resolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = resolver._resolveFilename;
resolver._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? original.call(this, STUB, ...rest) : original.call(this, request, ...rest);
};
