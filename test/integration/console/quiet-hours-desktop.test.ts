import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * The desktop's side of quiet hours (issue 46 §1, docs/desktop.md "Quiet hours"): the old
 * do-not-disturb switch moves into the first administrator's rule once, and the window person's
 * rules decide each native notification.
 */
describe('quiet hours: the desktop', () => {
  let herald: TestHerald;
  let adminId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    adminId = (await herald.console.ok('GET', '/me')).user?.id ?? 1;
  });
  afterAll(() => herald?.close(true));

  it('moves do not disturb into the first administrator’s rule, once', async () => {
    const { quietHours } = herald.server;
    const ruleId = await quietHours.migrateDoNotDisturb('Asia/Shanghai');
    expect(ruleId).not.toBeNull();
    const { items } = await herald.console.ok(
      'GET',
      `/quiet-hours?ownerType=user&ownerId=${adminId}`,
    );
    expect(items).toMatchObject([
      {
        id: ruleId,
        timezone: 'Asia/Shanghai',
        weekdays: [0, 1, 2, 3, 4, 5, 6],
        start: '00:00',
        end: '00:00',
        action: 'drop',
        bypassPriority: 5,
        enabled: true,
      },
    ]);
    // Again (the switch was left on at the next quit): the same rule, switched back on.
    await herald.console.ok('PUT', `/quiet-hours/${ruleId}`, { enabled: false });
    expect(await quietHours.migrateDoNotDisturb('Asia/Shanghai')).toBe(ruleId);
    const again = await herald.console.ok('GET', `/quiet-hours?ownerType=user&ownerId=${adminId}`);
    expect(again.items).toHaveLength(1);
    expect(again.items[0].enabled).toBe(true);

    // The window person's notifications: dropped, except at the bypass priority.
    expect(await quietHours.decide(adminId, 3)).toMatchObject({ action: 'drop', ruleId });
    expect(await quietHours.decide(adminId, 5)).toBeNull();
    await herald.console.ok('DELETE', `/quiet-hours/${ruleId}`);
    expect(await quietHours.decide(adminId, 3)).toBeNull();
  });
});
