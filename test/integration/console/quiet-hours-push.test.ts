import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { startTestHerald, type ConsoleClient, type TestHerald } from '../../helpers/herald';
import {
  browserKeys,
  startLocalPushService,
  type LocalPushService,
} from '../../helpers/local-push-service';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * A person's own quiet hours over their Web Push (issue 46 §1): each person's rule applies to
 * the pushes to their own devices only. The rules here cover the whole day in UTC, so "now" is
 * always inside them whatever the hour the test runs; the witness, without a rule, shows the
 * message was pushed.
 */
describe('quiet hours: a person’s Web Push', () => {
  let push: LocalPushService;
  let herald: TestHerald;
  let token: string;
  const people: Record<string, { client: ConsoleClient; user: any; endpoint: string; keys: any }> =
    {};
  const witness = { endpoint: '', keys: browserKeys() };

  beforeAll(async () => {
    push = await startLocalPushService();
    vi.stubEnv('HERALD_WEB_PUSH_ENDPOINTS', push.origin);
    herald = await startTestHerald();
    const inbox = await herald.createChannel('hosted', {}, 'inbox');
    ({ token } = await herald.createTemplate({ text: 'the nightly report' }, [
      { channelId: inbox.id, contentType: 'text' },
    ]));
    witness.endpoint = push.endpoint('witness');
    await herald.console.ok('POST', '/push/subscriptions', {
      endpoint: witness.endpoint,
      keys: { p256dh: witness.keys.p256dh, auth: witness.keys.auth },
      deviceName: 'witness',
    });
    for (const action of ['soften', 'hold', 'drop']) {
      const { client, user } = await herald.signedInAs('viewer', `quiet-${action}`);
      const person = { client, user, endpoint: push.endpoint(action), keys: browserKeys() };
      await client.ok('POST', '/push/subscriptions', {
        endpoint: person.endpoint,
        keys: { p256dh: person.keys.p256dh, auth: person.keys.auth },
        deviceName: action,
      });
      await client.ok('POST', '/quiet-hours', {
        ownerType: 'user',
        ownerId: user.id,
        timezone: 'UTC',
        start: '00:00',
        end: '00:00',
        action,
      });
      people[action] = person;
    }
  });
  afterAll(async () => {
    await herald?.close(true);
    await push?.close();
    vi.unstubAllEnvs();
  });

  it('softens, holds or drops each person’s own push, and a priority 5 goes through', async () => {
    const answer = await herald.sendV2({ token, title: 'quiet night', priority: 3 });
    expect(answer.body.code).toBe(200);
    await push.waitForPushes(1, witness.endpoint);
    const softened = (await push.waitForPushes(1, people.soften.endpoint))[0]!;
    expect(softened.headers.urgency).toBe('low');
    const payload = JSON.parse(push.decrypt(softened, people.soften.keys).toString('utf8'));
    expect(payload).toMatchObject({ title: 'quiet night', silent: true });
    expect(push.pushesTo(witness.endpoint)[0]!.headers.urgency).toBe('normal');

    const page = await herald.console.ok('GET', '/logs?q=quiet%20night');
    const byDevice = await herald.waitFor(async () => {
      const detail = await herald.console.ok('GET', `/logs/${page.items[0].id}`);
      const pushes = detail.deliveries.filter((d: any) => d.channelType === 'web-push');
      const open = pushes.some((d: any) => ['sending'].includes(d.status));
      const dropped = pushes.find((d: any) => d.recipient.endsWith('· drop'));
      return !open && dropped?.status === 'suppressed' ? pushes : null;
    });
    const of = (device: string) => byDevice.find((d: any) => d.recipient.endsWith(`· ${device}`));
    expect(of('hold')).toMatchObject({
      status: 'queued',
      attempts: 0,
      lastError: expect.stringMatching(/^held by quiet-hours rule \d+ until /),
    });
    expect(of('drop').lastError).toMatch(/^dropped by quiet-hours rule \d+/);
    expect(push.pushesTo(people.hold.endpoint)).toEqual([]);
    expect(push.pushesTo(people.drop.endpoint)).toEqual([]);

    // At the rules' bypass priority every device is pushed at once.
    await herald.sendV2({ token, title: 'wake up', priority: 5 });
    for (const action of ['soften', 'hold', 'drop']) {
      const pushes = await push.waitForPushes(action === 'soften' ? 2 : 1, people[action].endpoint);
      expect(pushes.at(-1)!.headers.urgency).toBe('high');
    }
  });
});
