import { describe, expect, it } from 'vitest';

import { e2eRequired } from '../../e2e/required';

describe('e2eRequired()', () => {
  it('e2eRequired() reads HERALD_E2E_REQUIRED as a list of suites, 1/all meaning every suite', () => {
    expect(e2eRequired('chromium', '')).toBe(false);
    expect(e2eRequired('electron', '')).toBe(false);
    expect(e2eRequired('electron', '1')).toBe(true);
    expect(e2eRequired('chromium', 'all')).toBe(true);
    expect(e2eRequired('chromium', 'chromium')).toBe(true);
    expect(e2eRequired('electron', 'chromium')).toBe(false);
    expect(e2eRequired('electron', 'chromium, electron')).toBe(true);
  });
});
