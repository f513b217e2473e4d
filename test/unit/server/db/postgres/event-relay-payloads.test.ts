import { describe, expect, it } from 'vitest';

import { payloads } from '../../../../../server/db/postgres/event-relay';

describe('NOTIFY payloads of the event relay', () => {
  it('cut a large batch below PostgreSQL’s 8,000-byte limit, keeping every event in order', () => {
    const events = Array.from(
      { length: 2_000 },
      (_, i) => ['d', i + 1, 100_000 + i, 'sent'] as ['d', number, number, 'sent'],
    );
    const out = payloads('origin-1', events);
    expect(out.length).toBeGreaterThan(1);
    for (const p of out) expect(Buffer.byteLength(p)).toBeLessThan(8_000);
    const parsed = out.map((p) => JSON.parse(p) as { o: string; e: unknown[] });
    expect(parsed.every((p) => p.o === 'origin-1')).toBe(true);
    expect(parsed.flatMap((p) => p.e)).toEqual(events);
  });

  it('send nothing for no events, and one payload for a few', () => {
    expect(payloads('o', [])).toEqual([]);
    expect(payloads('o', [['s', 7, 'pending']])).toEqual(['{"o":"o","e":[["s",7,"pending"]]}']);
  });
});
