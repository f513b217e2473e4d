import { describe, expect, it } from 'vitest';

import { isPreviewKeyShaped, newPreviewKey } from '../../../../server/domain/preview-keys';

describe('newPreviewKey', () => {
  it('gives 128-bit base64url keys, all different, across refills of its random pool', () => {
    // 1,000 keys draw from four 4 KB pools.
    const keys = Array.from({ length: 1000 }, () => newPreviewKey());
    for (const key of keys) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(isPreviewKeyShaped(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });
});
