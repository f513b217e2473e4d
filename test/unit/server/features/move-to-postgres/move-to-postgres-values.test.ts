import { describe, expect, it } from 'vitest';

import { toTarget } from '../../../../../server/features/move-to-postgres/copy-rows';

describe('SQLite values as the PostgreSQL columns take them', () => {
  it('turns SQLite 0/1 into booleans', () => {
    expect(toTarget(1, 'boolean')).toBe(true);
    expect(toTarget(0, 'boolean')).toBe(false);
    expect(toTarget('1', 'boolean')).toBe(true);
    expect(toTarget(null, 'boolean')).toBeNull();
  });

  it('keeps JSON text, and writes a number that numeric affinity stored as one back as JSON', () => {
    expect(toTarget('{"a":[1,2]}', 'json')).toBe('{"a":[1,2]}');
    expect(toTarget(42, 'json')).toBe('42');
    expect(toTarget('not json', 'jsonb')).toBe('"not json"');
  });

  it('passes SQLite date text through and turns epoch milliseconds into ISO text', () => {
    expect(toTarget('2026-11-23 13:31:46.123 +00:00', 'timestamp with time zone')).toBe(
      '2026-11-23 13:31:46.123 +00:00',
    );
    expect(toTarget(Date.UTC(2026, 10, 23), 'timestamp with time zone')).toBe(
      '2026-11-23T00:00:00.000Z',
    );
  });

  it('leaves integers and text alone, bigints as text', () => {
    expect(toTarget(7, 'integer')).toBe(7);
    expect(toTarget(2n ** 60n, 'bigint')).toBe('1152921504606846976');
    expect(toTarget('告警', 'text')).toBe('告警');
  });
});
