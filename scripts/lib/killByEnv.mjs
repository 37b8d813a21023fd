// Ends every process of this user whose environment holds `entry` (e.g. `XDG_RUNTIME_DIR=<a run's folder>`):
// what a run started that outlives it on purpose (the server host and its servers, detached). Linux (/proc);
// elsewhere nothing is found. Returns how many were ended.
import { readdirSync, readFileSync } from 'node:fs';

/** SIGKILLs every process of this user whose environment holds `entry` (Linux /proc; elsewhere nothing). */
export function killByEnv(entry) {
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  let killed = 0;
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry)) continue;
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return killed;
}
