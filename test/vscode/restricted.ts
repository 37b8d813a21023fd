// Entry point of the Restricted Mode session of the offline runner: a code-server started WITHOUT
// --disable-workspace-trust, on a folder the runner filled with servers that would leave traces
// (a marker file, a recorded HTTP request) if anything of them ran. Runs the tests under `restricted/`.
import { runFolder } from './index';

export function run(): Promise<void> {
  return runFolder('restricted');
}
