/** A count of characters in readable units, as documents and messages say how large something is. */

/** `n` characters in readable units (`5.2 MB`, `310 KB`). */
export function formatSize(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} MB`;
  if (n >= 1_000) return `${Math.round(n / 1_000)} KB`;
  return `${n} characters`;
}
