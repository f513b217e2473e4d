import { describe, expect, it } from 'vitest';

import { OPEN_STATUSES, statusFromCounts } from '../../../../server/queue/delivery-transitions';

describe('statusFromCounts()', () => {
  it('rolls finished deliveries up into sent, partial or failed', () => {
    expect(statusFromCounts({ sent: 2 })).toBe('sent');
    expect(statusFromCounts({ sent: 1, failed: 1 })).toBe('partial');
    expect(statusFromCounts({ failed: 2 })).toBe('failed');
  });

  it('counts deliveries dropped by quiet hours as neither sent nor failed', () => {
    expect(statusFromCounts({ suppressed: 2 })).toBe('suppressed');
    expect(statusFromCounts({ suppressed: 1, sent: 1 })).toBe('sent');
    expect(statusFromCounts({ suppressed: 1, failed: 1 })).toBe('failed');
    expect(statusFromCounts({ suppressed: 1, queued: 1 })).toBe('pending');
  });

  it('keeps a send pending while any delivery is still open', () => {
    for (const open of OPEN_STATUSES) {
      expect(statusFromCounts({ sent: 1, [open]: 1 })).toBe('pending');
      expect(statusFromCounts({ failed: 1, [open]: 1 })).toBe('pending');
    }
  });

  it('calls a send without deliveries pending, not sent', () => {
    expect(statusFromCounts({})).toBe('pending');
  });
});
