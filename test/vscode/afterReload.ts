// Entry point of the second extension-host session of the offline runner: the same user data
// (workspace storage) after the window was reloaded, i.e. after a restart of the extension host.
// Runs the tests under `afterReload/`.
import { runFolder } from './index';

export function run(): Promise<void> {
  return runFolder('afterReload');
}
