import { describe, expect, it } from 'vitest';

import { ADVISORY_LOCKS } from '../../../../../server/db/postgres/advisory-locks';
import { HOSTED_INSERT_LOCK_KEYS } from '../../../../../server/db/postgres/hosted-insert-lock';

describe('the PostgreSQL advisory lock keys', () => {
  it('stay the numbers earlier versions lock, so that processes of both see each other', () => {
    // 1213352004 reads 'HRHD', not the 'HRLD' it was meant to be: changing it now would let an
    // upgraded process miss the locks an older one holds on the same database.
    expect(ADVISORY_LOCKS).toEqual({
      processes: '1213352004, 1',
      hostedInserts: '1213352004, 2',
    });
    expect(Buffer.from([0x48, 0x52, 0x48, 0x44]).readInt32BE(0)).toBe(1213352004);
  });

  it('give the hosted-insert trigger and read-all the same lock', () => {
    expect(HOSTED_INSERT_LOCK_KEYS).toBe(ADVISORY_LOCKS.hostedInserts);
  });
});
