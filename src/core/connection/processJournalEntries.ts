/**
 * The entries of the journal of started server processes, checked (processJournal.ts reads them):
 * in the protocol part (scripts/lib/lazyParts.mjs), evaluated only when a journal is there to read.
 */
import { z } from 'zod';

const EntrySchema = z.object({
  pid: z.number().int().positive(),
  /** The window (extension host process) that started it. */
  owner: z.number().int().positive(),
  /** The program and its arguments, as `/proc/<pid>/cmdline` shows them (NUL-separated). */
  cmdline: z.string().max(64 * 1024),
  /**
   * Which process with that pid (`<boot id>/<start time>`), read when it was
   * started (processJournal.ts). Absent in entries of earlier releases and where it cannot be read: such a process is never stopped.
   */
  instance: z.string().max(200).optional(),
});
const JournalSchema = z.array(EntrySchema).max(1_000);
export type ProcessJournalEntry = z.infer<typeof EntrySchema>;

/** The journal's entries, or none if it is not one (a damaged file starts empty). */
export function validJournalEntries(value: unknown): ProcessJournalEntry[] {
  const parsed = JournalSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
}
