import { describe, expect, it } from 'vitest';

import { TEST_HOOKS_GLOBAL, installTestHooks } from '../../../main/test-hooks';

describe('installTestHooks', () => {
  it('installTestHooks() publishes the hooks for an unpackaged app with HERALD_TEST_HOOKS=1', () => {
    const target: Record<string, unknown> = {};

    const hooks = installTestHooks(false, { HERALD_TEST_HOOKS: '1' }, target);

    expect(hooks).not.toBeNull();
    expect(target[TEST_HOOKS_GLOBAL]).toBe(hooks);
    expect(hooks).toMatchObject({ ready: false, notifications: [] });
  });

  it('installTestHooks() installs nothing in a packaged app or without the variable', () => {
    const target: Record<string, unknown> = {};

    expect(installTestHooks(true, { HERALD_TEST_HOOKS: '1' }, target)).toBeNull();
    expect(installTestHooks(false, {}, target)).toBeNull();
    expect(target).toEqual({});
  });
});
