import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { PushFanout } from '../../../server/features/web-push/push-fanout';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import type { ConsoleClient } from '../../helpers/herald';
import {
  browserKeys,
  startLocalPushService,
  type BrowserKeys,
  type LocalPushService,
} from '../../helpers/local-push-service';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * Web Push end to end (issue 43 §1, docs/reader.md): people subscribe their browsers through
 * the console API, a hosted message is pushed to a local push service over real HTTP, which
 * checks the VAPID signature and whose payload the test decrypts with the keys it made as a
 * browser would. One Herald for the file; every "no push" is read after a witness
 * subscription (filter: all) got the same message, since a message's pushes are planned in one
 * write.
 */
describe('Web Push', () => {
  let push: LocalPushService;
  let herald: TestHerald;
  let inbox: { id: number };
  let alerts: { template: any; token: string };
  let reports: { template: any; token: string };
  let viewer: ConsoleClient;
  let witness: { endpoint: string; keys: BrowserKeys };
  let sent = 0;

  beforeAll(async () => {
    push = await startLocalPushService();
    vi.stubEnv('HERALD_WEB_PUSH_ENDPOINTS', push.origin);
    herald = await startTestHerald();
    inbox = await herald.createChannel('hosted', {}, 'inbox');
    alerts = await herald.createTemplate(
      {
        name: 'alerts',
        text: 'disk {{disk}} is full',
        placeholders: [{ key: 'disk', label: 'Disk' }],
      },
      [{ channelId: inbox.id, contentType: 'text' }],
    );
    reports = await herald.createTemplate({ name: 'reports', text: 'the weekly report' }, [
      { channelId: inbox.id, contentType: 'text' },
    ]);
    ({ client: viewer } = await herald.signedInAs('viewer', 'vera'));
    witness = { endpoint: push.endpoint('witness'), keys: browserKeys() };
    await herald.console.ok('POST', '/push/subscriptions', subscription(witness, 'witness'));
  });
  afterAll(async () => {
    await herald?.close(true);
    await push?.close();
    vi.unstubAllEnvs();
  });

  function subscription(
    device: { endpoint: string; keys: BrowserKeys },
    deviceName: string,
    filter?: Record<string, unknown>,
  ) {
    return {
      endpoint: device.endpoint,
      keys: { p256dh: device.keys.p256dh, auth: device.keys.auth },
      deviceName,
      ...(filter ? { filter } : {}),
    };
  }

  /**
   * Sends one message and waits until the witness has its push: by then every push of the
   * message is planned (one write plans them all), so its send lists them.
   */
  async function send(
    via: { token: string },
    fields: Record<string, unknown> = {},
  ): Promise<{ title: string; messageId: number; sendId: number }> {
    const title = `[${++sent}] message`;
    const answer = await herald.sendV2({
      token: via.token,
      title,
      ...(via === alerts ? { placeholders: { disk: '/var' } } : {}),
      ...fields,
    });
    expect(answer.body.code).toBe(200);
    const pushes = await push.waitForPushes(sent, witness.endpoint);
    const payload = JSON.parse(push.decrypt(pushes.at(-1)!, witness.keys).toString('utf8'));
    expect(payload.title).toBe(title);
    const page = await herald.console.ok('GET', `/logs?q=${encodeURIComponent(title)}`);
    expect(page.items).toHaveLength(1);
    return { title, messageId: payload.messageId, sendId: page.items[0].id };
  }

  /**
   * A planner of this Herald's database that listens to nothing, as another process's (or the
   * next start's) would be; it wakes this Herald's dispatcher for what it queues.
   */
  function planner(): PushFanout {
    const { ctx } = herald.server;
    return new PushFanout({
      sequelize: ctx.sequelize,
      writeLock: ctx.writeLock,
      events: ctx.events,
      clock: ctx.clock,
      wake: () => ctx.dispatcher.wake(),
    });
  }

  /** Whose devices a send's pushes went to (planned: whatever they came to). */
  async function pushRecipients(sendId: number): Promise<string[]> {
    const detail = await herald.console.ok('GET', `/logs/${sendId}`);
    return detail.deliveries
      .filter((d: any) => d.channelType === 'web-push')
      .map((d: any) => d.recipient)
      .sort();
  }

  /**
   * A send with its deliveries, once none is waiting any more and the send's own status has
   * caught up with them (it is rolled up after its last delivery's outcome is written).
   */
  async function settled(sendId: number): Promise<any> {
    return herald.waitFor(async () => {
      const detail = await herald.console.ok('GET', `/logs/${sendId}`);
      const waiting = detail.deliveries.some((d: any) =>
        ['queued', 'sending', 'retrying'].includes(d.status),
      );
      return waiting || detail.status === 'pending' ? null : detail;
    });
  }

  it('GET /push/key answers the VAPID public key, the same every time', async () => {
    const first = await viewer.ok('GET', '/push/key');
    const again = await herald.console.ok('GET', '/push/key');
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(first.publicKey, 'base64url')[0]).toBe(4);
    expect(again.publicKey).toBe(first.publicKey);
  });

  it('a viewer subscribes a browser and gets a signed, encrypted push of a new message', async () => {
    const phone = { endpoint: push.endpoint('phone'), keys: browserKeys() };
    const created = await viewer.ok('POST', '/push/subscriptions', subscription(phone, 'Phone'));
    expect(created).toMatchObject({
      deviceName: 'Phone',
      endpoint: phone.endpoint,
      filter: { templates: 'all', tasks: 'all', minPriority: 1 },
      lastPushAt: null,
    });
    expect((await viewer.ok('GET', '/push/subscriptions')).items).toContainEqual(created);

    const { title, messageId, sendId } = await send(alerts, { priority: 5, dedupKey: 'disk-var' });
    const [received] = await push.waitForPushes(1, phone.endpoint);
    const vapid = push.checkVapid(received!);
    expect(vapid.problems).toEqual([]);
    expect(vapid.publicKey).toBe((await viewer.ok('GET', '/push/key')).publicKey);
    expect(received!.headers['content-encoding']).toBe('aes128gcm');
    expect(received!.headers.urgency).toBe('high');
    expect(Number(received!.headers.ttl)).toBeGreaterThan(0);
    expect(received!.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    const payload = JSON.parse(push.decrypt(received!, phone.keys).toString('utf8'));
    expect(payload).toMatchObject({
      title,
      body: 'disk /var is full',
      messageId,
      priority: 5,
    });
    // The message it names is the one the reader shows.
    expect((await viewer.ok('GET', `/messages/${messageId}`)).title).toBe(title);

    // The push is a delivery of the send, logged like any other.
    const detail = await settled(sendId);
    const pushes = detail.deliveries.filter((d: any) => d.channelType === 'web-push');
    expect(pushes.map((d: any) => [d.recipient, d.status])).toEqual(
      expect.arrayContaining([
        ['vera · Phone', 'sent'],
        ['admin · witness', 'sent'],
      ]),
    );
    expect(detail.status).toBe('sent');
    const listed = await herald.waitFor(async () => {
      const { items } = await viewer.ok('GET', '/push/subscriptions');
      const row = items.find((s: any) => s.id === created.id);
      return row.lastPushAt ? row : null;
    });
    expect(listed.id).toBe(created.id);
  });

  it('gives one thread (source and dedup key) one Topic, and urgency by priority', async () => {
    await send(alerts, { dedupKey: 'disk-home' });
    const alertsPush = push.pushesTo(witness.endpoint).at(-1)!;
    await send(reports, { priority: 2 });
    const reportsPush = push.pushesTo(witness.endpoint).at(-1)!;
    await send(reports, { priority: 4 });
    const again = push.pushesTo(witness.endpoint).at(-1)!;
    expect(alertsPush.headers.topic).not.toBe(reportsPush.headers.topic);
    expect(again.headers.topic).toBe(reportsPush.headers.topic);
    expect([alertsPush, reportsPush, again].map((p) => p.headers.urgency)).toEqual([
      'normal',
      'low',
      'normal',
    ]);
  });

  it("plans a message's pushes once, however many processes hear of it", async () => {
    const { messageId, sendId } = await send(reports);
    const before = await pushRecipients(sendId);
    expect(before).toContain('admin · witness');
    // Another process on PostgreSQL hears the same message through the event relay: its
    // planner finds the message already planned and adds nothing.
    expect(await planner().plan(messageId)).toEqual([]);
    expect(await pushRecipients(sendId)).toEqual(before);
  });

  it('plans at start the pushes of a message a stop committed but never planned, and only those', async () => {
    const { ctx } = herald.server;
    // A planned message first: recovery must leave it alone.
    await send(reports);
    // The state a crash between a message's commit and its plan leaves: the message is stored
    // and announced to nobody, so this process's planner never hears of it.
    const emit = ctx.events.emit.bind(ctx.events) as (name: string, ...args: unknown[]) => boolean;
    const muted = vi
      .spyOn(ctx.events, 'emit')
      .mockImplementation(((name: string, ...args: unknown[]) =>
        name === 'message' ? false : emit(name, ...args)) as typeof ctx.events.emit);
    const title = `[${++sent}] committed before a stop`;
    try {
      const answer = await herald.sendV2({ token: reports.token, title });
      expect(answer.body.code).toBe(200);
      await herald.waitFor(async () => {
        const page = await herald.console.ok('GET', `/messages?q=${encodeURIComponent(title)}`);
        return page.items.length === 1 ? true : null;
      });
    } finally {
      muted.mockRestore();
    }
    const page = await herald.console.ok('GET', `/logs?q=${encodeURIComponent(title)}`);
    expect(await pushRecipients(page.items[0].id)).toEqual([]);

    // The next start's recovery plans exactly that message, and the witness's phone buzzes.
    expect(await planner().recover()).toBe(1);
    const pushes = await push.waitForPushes(sent, witness.endpoint);
    const payload = JSON.parse(push.decrypt(pushes.at(-1)!, witness.keys).toString('utf8'));
    expect(payload.title).toBe(title);
    expect(await pushRecipients(page.items[0].id)).toContain('admin · witness');
    // Planned once: another start finds nothing left, and a window that ended before the
    // message was stored does not reach it.
    expect(await planner().recover()).toBe(0);
    expect(await planner().recover(0)).toBe(0);
  });

  it('refuses an endpoint that is not a known push service with a 400 that says why', async () => {
    const keys = browserKeys();
    for (const endpoint of [
      'https://evil.example.com/push/1',
      'http://127.0.0.1:9/push/1',
      'https://fcm.googleapis.com.evil.example/fcm/send/1',
      'http://fcm.googleapis.com/fcm/send/1',
      'not a url',
    ]) {
      const r = await viewer.post(
        '/push/subscriptions',
        subscription({ endpoint, keys }, 'Laptop'),
      );
      expect(r.status, endpoint).toBe(400);
      expect(r.body.msg, endpoint).toMatch(/^endpoint: /);
    }
    const r = await viewer.post(
      '/push/subscriptions',
      subscription({ endpoint: 'https://evil.example.com/push/2', keys }, 'Laptop'),
    );
    expect(r.body.msg).toContain('is not a known push service');
    expect(r.body.msg).toContain('HERALD_WEB_PUSH_ENDPOINTS');
    const badKeys = await viewer.post('/push/subscriptions', {
      ...subscription({ endpoint: push.endpoint(), keys }, 'Laptop'),
      keys: { p256dh: 'short', auth: keys.auth },
    });
    expect(badKeys.status).toBe(400);
    expect(badKeys.body.msg).toContain('keys.p256dh');
    // The right length, but no point on P-256; a secret of 18 bytes.
    const offCurve = Buffer.alloc(65, 1);
    offCurve[0] = 4;
    for (const [bad, why] of [
      [{ p256dh: offCurve.toString('base64url'), auth: keys.auth }, 'keys.p256dh: is not a P-256'],
      [
        { p256dh: keys.p256dh, auth: Buffer.alloc(18).toString('base64url') },
        'keys.auth: must be 16',
      ],
    ] as const) {
      const r = await viewer.post('/push/subscriptions', {
        ...subscription({ endpoint: push.endpoint(), keys }, 'Laptop'),
        keys: bad,
      });
      expect(r.status, why).toBe(400);
      expect(r.body.msg).toContain(why);
    }
    // The known services themselves are accepted (nothing is sent to them here).
    const fcm = await viewer.ok(
      'POST',
      '/push/subscriptions',
      subscription({ endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys }, 'Chrome'),
    );
    await viewer.ok('DELETE', `/push/subscriptions/${fcm.id}`);
  });

  it('honours the filter: only the chosen templates, from the minimum priority up', async () => {
    const tablet = { endpoint: push.endpoint('tablet'), keys: browserKeys() };
    await viewer.ok(
      'POST',
      '/push/subscriptions',
      subscription(tablet, 'Tablet', { templates: [reports.template.id], minPriority: 4 }),
    );
    const other = await send(alerts, { priority: 5 });
    const low = await send(reports, { priority: 3 });
    const wanted = await send(reports, { priority: 4 });
    expect(await pushRecipients(other.sendId)).not.toContain('vera · Tablet');
    expect(await pushRecipients(low.sendId)).not.toContain('vera · Tablet');
    expect(await pushRecipients(wanted.sendId)).toContain('vera · Tablet');
    const received = await push.waitForPushes(1, tablet.endpoint);
    expect(JSON.parse(push.decrypt(received[0]!, tablet.keys).toString('utf8')).messageId).toBe(
      wanted.messageId,
    );
  });

  it('checks rights when it pushes: a disabled account gets nothing, and again once enabled', async () => {
    const { client: dana, user } = await herald.signedInAs('viewer', 'dana');
    const laptop = { endpoint: push.endpoint('dana'), keys: browserKeys() };
    await dana.ok('POST', '/push/subscriptions', subscription(laptop, 'Laptop'));
    await herald.console.ok('PATCH', `/users/${user.id}`, { disabled: true });
    const whileDisabled = await send(alerts);
    expect(await pushRecipients(whileDisabled.sendId)).not.toContain('dana · Laptop');
    await herald.console.ok('PATCH', `/users/${user.id}`, { disabled: false });
    const enabled = await send(alerts);
    expect(await pushRecipients(enabled.sendId)).toContain('dana · Laptop');
    await push.waitForPushes(1, laptop.endpoint);
    expect(push.pushesTo(laptop.endpoint)).toHaveLength(1);
  });

  it('checks rights again at each attempt: a retry after the account was disabled is not pushed', async () => {
    const { client: rita, user } = await herald.signedInAs('viewer', 'rita');
    const phone = { endpoint: push.endpoint('rita'), keys: browserKeys() };
    await rita.ok('POST', '/push/subscriptions', subscription(phone, 'Phone'));
    // Busy for an hour: the delivery waits, retrying, until it is queued again by hand.
    push.answerNext(phone.endpoint, { status: 429, retryAfter: 3600 });
    const { sendId } = await send(alerts);
    await push.waitForPushes(1, phone.endpoint);
    const waiting = await herald.waitFor(async () => {
      const detail = await herald.console.ok('GET', `/logs/${sendId}`);
      const d = detail.deliveries.find((x: any) => x.recipient === 'rita · Phone');
      return d?.status === 'retrying' ? d : null;
    });
    await herald.console.ok('PATCH', `/users/${user.id}`, { disabled: true });
    await herald.console.ok('POST', `/deliveries/${waiting.id}/retry`);
    const detail = await settled(sendId);
    const refused = detail.deliveries.find((d: any) => d.id === waiting.id);
    expect(refused.status).toBe('failed');
    expect(refused.lastError).toBe('rita may not read this message');
    expect(push.pushesTo(phone.endpoint)).toHaveLength(1);
  });

  it('removes a subscription its push service answers 410 for, and fails that delivery', async () => {
    const old = { endpoint: push.endpoint('old'), keys: browserKeys() };
    const created = await viewer.ok('POST', '/push/subscriptions', subscription(old, 'Old'));
    push.answerAlways(old.endpoint, 410);
    const { sendId } = await send(reports);
    await push.waitForPushes(1, old.endpoint);
    await herald.waitFor(async () => {
      const { items } = await viewer.ok('GET', '/push/subscriptions');
      return !items.some((s: any) => s.id === created.id);
    });
    const detail = await settled(sendId);
    const gone = detail.deliveries.find((d: any) => d.recipient === 'vera · Old');
    expect(gone.status).toBe('failed');
    expect(gone.attempts).toBe(1);
    expect(gone.lastError).toContain('HTTP 410');
    expect(detail.status).toBe('partial');
    // Gone: the next message is not pushed to it.
    const next = await send(reports);
    expect(await pushRecipients(next.sendId)).not.toContain('vera · Old');
  });

  it('retries a push the push service answers 429 or 500, as any delivery', async () => {
    const busy = { endpoint: push.endpoint('busy'), keys: browserKeys() };
    await viewer.ok('POST', '/push/subscriptions', subscription(busy, 'Busy'));
    push.answerNext(busy.endpoint, { status: 429, retryAfter: 0 }, 500, 503);
    const { messageId, sendId } = await send(alerts);
    const received = await push.waitForPushes(4, busy.endpoint);
    expect(received.map((p) => p.answered)).toEqual([429, 500, 503, 201]);
    const payload = JSON.parse(push.decrypt(received[3]!, busy.keys).toString('utf8'));
    expect(payload.messageId).toBe(messageId);
    const detail = await settled(sendId);
    const delivery = detail.deliveries.find((d: any) => d.recipient === 'vera · Busy');
    expect(delivery.status).toBe('sent');
    expect(delivery.attemptLog.map((a: any) => a.outcome)).toEqual([
      'transient',
      'transient',
      'transient',
      'sent',
    ]);
  });

  it('lists and removes only your own subscriptions, and audits both', async () => {
    const mine = await viewer.ok(
      'POST',
      '/push/subscriptions',
      subscription({ endpoint: push.endpoint('mine'), keys: browserKeys() }, 'Mine'),
    );
    const admins = (await herald.console.ok('GET', '/push/subscriptions')).items;
    expect(admins.map((s: any) => s.deviceName)).toEqual(['witness']);
    const others = await viewer.del(`/push/subscriptions/${admins[0].id}`);
    expect(others.status).toBe(404);
    expect((await viewer.del(`/push/subscriptions/${mine.id}`)).status).toBe(200);
    expect((await viewer.del(`/push/subscriptions/${mine.id}`)).status).toBe(404);
    const { items } = await viewer.ok('GET', '/push/subscriptions');
    expect(items.some((s: any) => s.id === mine.id)).toBe(false);
    const audit = await herald.console.ok('GET', '/audit?pageSize=100');
    const actions = audit.items
      .filter((e: any) => e.username === 'vera')
      .map((e: any) => `${e.action} ${e.targetId} ${e.targetName}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        `push.subscribe ${mine.id} Mine`,
        `push.unsubscribe ${mine.id} Mine`,
      ]),
    );
  });

  it('the same endpoint subscribed again replaces its row: one browser, one push', async () => {
    const shared = { endpoint: push.endpoint('shared'), keys: browserKeys() };
    const first = await viewer.ok('POST', '/push/subscriptions', subscription(shared, 'Shared'));
    const renewed = { endpoint: shared.endpoint, keys: browserKeys() };
    const second = await viewer.ok(
      'POST',
      '/push/subscriptions',
      subscription(renewed, 'Shared again'),
    );
    expect(second.id).toBe(first.id);
    expect(second.deviceName).toBe('Shared again');
    const { sendId } = await send(reports);
    expect(await pushRecipients(sendId)).toEqual(expect.arrayContaining(['vera · Shared again']));
    expect(
      (await pushRecipients(sendId)).filter((r) => r.startsWith('vera · Shared')),
    ).toHaveLength(1);
    const [received] = await push.waitForPushes(1, shared.endpoint);
    // Encrypted to the keys it was subscribed with last.
    expect(JSON.parse(push.decrypt(received!, renewed.keys).toString('utf8')).title).toMatch(
      /\] message$/,
    );
  });
});
