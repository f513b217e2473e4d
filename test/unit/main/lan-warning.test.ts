import { describe, expect, it } from 'vitest';

import { lanWarningDialog } from '../../../main/lan-warning';

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
