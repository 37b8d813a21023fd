/** The pure parts of a ledger scope (receiver/serverTaskParts.ts); paging is covered through tasks/list in ledger.test.ts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedLookupCounter, MAX_AUDIT_ENTRIES, appendAudit } from '../../../src/core/receiver/serverTaskParts.js';
import type { AuditEntry } from '../../../src/core/receiver/ledgerTypes.js';

describe('scope parts', () => {
  it('R-SEC-4: the audit trail keeps its first line and the latest ones', () => {
    const audit: AuditEntry[] = [];
    for (let i = 0; i < MAX_AUDIT_ENTRIES + 10; i++) appendAudit(audit, { at: i, event: i === 0 ? 'created' : 'status' });
    assert.equal(audit.length, MAX_AUDIT_ENTRIES);
    assert.equal(audit[0]!.event, 'created');
    assert.equal(audit[1]!.at, 11);
    assert.equal(audit.at(-1)!.at, MAX_AUDIT_ENTRIES + 9);
  });

  it('R-SEC-4: a burst of failed lookups is flagged once per window', () => {
    const c = new FailedLookupCounter(3, 1000);
    assert.deepEqual([c.note(1), c.note(2), c.note(3), c.note(4)], [undefined, undefined, 3, undefined]);
    assert.deepEqual([c.note(1002), c.note(1003), c.note(1004)], [undefined, undefined, 3], 'a new window counts afresh');
  });
});
