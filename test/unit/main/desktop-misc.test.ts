import { describe, expect, it } from 'vitest';

import { lanWarningDialog } from '../../../main/lan-warning';
import { TEST_HOOKS_GLOBAL, installTestHooks } from '../../../main/test-hooks';

describe('lanWarningDialog', () => {
  it('lanWarningDialog() explains the exposure and defaults to Cancel', () => {
    const dialog = lanWarningDialog(8765);

    expect(dialog.spec.detail).toContain('port 8765');
    expect(dialog.spec.detail).toContain('plain HTTP');
    expect(dialog.spec.buttons[dialog.spec.defaultId]).toBe('Cancel');
    expect(dialog.confirmed(0)).toBe(true);
    expect(dialog.confirmed(1)).toBe(false);
    expect(dialog.confirmed(-1)).toBe(false);
  });
});

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
