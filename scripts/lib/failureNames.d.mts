/** The names of what failed in a stage's output (scripts/lib/failureNames.mjs), at most 20, each once. */
export function failureNames(out: string, root?: string): string[];
