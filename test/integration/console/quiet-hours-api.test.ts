import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/**
 * The quiet-hours console API over real HTTP (docs/console-api.md "Quiet hours"): CRUD, the
 * preview, who may touch which rule, refusals in the envelope, and the audit log.
 */
describe('console API: quiet hours', () => {
  // Tuesday 2026-01-13, 23:30 in Berlin.
  const clock = new ManualClock(Date.parse('2026-01-13T22:30:00Z'));
  let herald: TestHerald;
  let channelId: number;
  let instanceId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ clock, startDispatcher: false });
    const channel = await herald.createChannel('hosted', {}, 'inbox');
    channelId = channel.id;
    const { template } = await herald.createTemplate({ text: 'x' }, [
      { channelId, contentType: 'text' },
    ]);
    const instances = await herald.console.ok('GET', `/templates/${template.id}/instances`);
    instanceId = (instances.items ?? instances)[0].id;
  });
  afterAll(() => herald?.close(true));

  const night = {
    timezone: 'europe/berlin',
    weekdays: [0, 1, 2, 3, 4, 5, 6],
    start: '22:00',
    end: '07:00',
  };

  it('creates, lists by owner, changes and deletes a channel rule, and previews it', async () => {
    const rule = await herald.console.ok('POST', '/quiet-hours', {
      ownerType: 'channel',
      ownerId: channelId,
      ...night,
    });
    expect(rule).toMatchObject({
      ownerType: 'channel',
      ownerId: channelId,
      timezone: 'Europe/Berlin',
      action: 'hold',
      bypassPriority: 5,
      enabled: true,
    });
    const listed = await herald.console.ok(
      'GET',
      `/quiet-hours?ownerType=channel&ownerId=${channelId}`,
    );
    expect(listed.items.map((r: { id: number }) => r.id)).toEqual([rule.id]);
    expect(
      (await herald.console.ok('GET', `/quiet-hours?ownerType=channel&ownerId=${channelId + 99}`))
        .items,
    ).toEqual([]);

    expect(await herald.console.ok('GET', `/quiet-hours/preview?channelId=${channelId}`)).toEqual({
      applies: true,
      action: 'hold',
      until: '2026-01-14T06:00:00.000Z',
      ruleId: rule.id,
    });
    // Priority 5 goes through; at noon nothing applies; the instance inherits its channel's.
    expect(
      (await herald.console.ok('GET', `/quiet-hours/preview?channelId=${channelId}&priority=5`))
        .applies,
    ).toBe(false);
    expect(
      (
        await herald.console.ok(
          'GET',
          `/quiet-hours/preview?channelId=${channelId}&at=2026-01-14T11:00:00Z`,
        )
      ).applies,
    ).toBe(false);
    expect(
      (await herald.console.ok('GET', `/quiet-hours/preview?instanceId=${instanceId}`)).ruleId,
    ).toBe(rule.id);

    // The instance's own rule overrides its channel's.
    const own = await herald.console.ok('POST', '/quiet-hours', {
      ownerType: 'instance',
      ownerId: instanceId,
      ...night,
      action: 'soften',
    });
    expect(
      await herald.console.ok('GET', `/quiet-hours/preview?instanceId=${instanceId}`),
    ).toMatchObject({ action: 'soften', ruleId: own.id });

    const changed = await herald.console.ok('PUT', `/quiet-hours/${rule.id}`, {
      action: 'drop',
      bypassPriority: 4,
    });
    expect(changed).toMatchObject({ action: 'drop', bypassPriority: 4, start: '22:00' });
    const audit = await herald.console.ok('GET', '/audit?action=quiethours.update');
    expect(audit.items[0]).toMatchObject({ action: 'quiethours.update' });

    await herald.console.ok('DELETE', `/quiet-hours/${rule.id}`);
    await herald.console.ok('DELETE', `/quiet-hours/${own.id}`);
    expect((await herald.console.ok('GET', '/quiet-hours?ownerType=channel')).items).toEqual([]);
  });

  it('refuses bad input with a 400 naming the field, and an unknown owner with a 404', async () => {
    const zone = await herald.console.post('/quiet-hours', {
      ownerType: 'channel',
      ownerId: channelId,
      ...night,
      timezone: 'Mars/Olympus',
    });
    expect(zone.status).toBe(400);
    expect(zone.body.msg).toContain('timezone');
    const time = await herald.console.post('/quiet-hours', {
      ownerType: 'channel',
      ownerId: channelId,
      ...night,
      start: '24:00',
    });
    expect(time.status).toBe(400);
    expect(time.body.msg).toContain('start');
    const missing = await herald.console.post('/quiet-hours', {
      ownerType: 'channel',
      ownerId: 9999,
      ...night,
    });
    expect(missing.status).toBe(404);
    const twoOwners = await herald.console.get(
      `/quiet-hours/preview?channelId=${channelId}&userId=1`,
    );
    expect(twoOwners.status).toBe(400);
  });

  it('lets every role keep their own rule, and no viewer touch a channel’s or another’s', async () => {
    const viewer = await herald.signedInAs('viewer');
    const editor = await herald.signedInAs('editor');
    const mine = await viewer.client.ok('POST', '/quiet-hours', {
      ownerType: 'user',
      ownerId: viewer.user.id,
      ...night,
    });
    expect(
      await viewer.client.ok('GET', `/quiet-hours/preview?userId=${viewer.user.id}`),
    ).toMatchObject({ applies: true, ruleId: mine.id });
    expect((await viewer.client.ok('GET', '/quiet-hours')).items).toHaveLength(1);

    const channelRule = await viewer.client.post('/quiet-hours', {
      ownerType: 'channel',
      ownerId: channelId,
      ...night,
    });
    expect(channelRule.status).toBe(403);
    const others = await viewer.client.post('/quiet-hours', {
      ownerType: 'user',
      ownerId: editor.user.id,
      ...night,
    });
    expect(others.status).toBe(403);
    // Someone else's rule: not found for an editor, changeable by an administrator.
    expect((await editor.client.put(`/quiet-hours/${mine.id}`, { enabled: false })).status).toBe(
      404,
    );
    expect((await editor.client.ok('GET', '/quiet-hours')).items).toEqual([]);
    const byAdmin = await herald.console.ok('PUT', `/quiet-hours/${mine.id}`, { enabled: false });
    expect(byAdmin.enabled).toBe(false);
    await viewer.client.ok('DELETE', `/quiet-hours/${mine.id}`);
  });
});
