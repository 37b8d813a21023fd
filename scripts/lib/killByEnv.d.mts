/** Ends (SIGKILL) every process whose environment holds `entry`; how many. Linux only (/proc). */
export function killByEnv(entry: string): number;
