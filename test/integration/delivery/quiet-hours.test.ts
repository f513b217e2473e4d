import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';

import { Delivery } from '../../../server/db/models';
import { startBarkPeer, type BarkPeer } from '../../fixtures/peers/bark-peer';
import { startDingTalkPeer, type DingTalkPeer } from '../../fixtures/peers/dingtalk-peer';
import { startDiscordPeer, type DiscordPeer } from '../../fixtures/peers/discord-peer';
import { startNtfyPeer, type NtfyPeer } from '../../fixtures/peers/ntfy-peer';
import { startSmtpSink, type SmtpSink } from '../../fixtures/peers/smtp-sink';
import { startTelegramPeer, type TelegramPeer } from '../../fixtures/peers/telegram-peer';
import { startWeComPeer, type WeComPeer } from '../../fixtures/peers/wecom-peer';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/**
 * Quiet hours in the pipeline (issue 46 §1, docs/architecture.md "Quiet hours"), on a moved
 * clock through a real Herald and the channels' local peers: a hold waits `queued` with its
 * release time and reason and goes, in order, when the window ends (through a restart); a
 * priority at the rule's bypass goes at once; a drop is recorded as suppressed; a soften reaches
 * each platform in its own silent mode; a window across midnight and a DST change ends at the
 * zone's wall-clock time.
 *
 * The tests share one Herald, clock and set of peers, and run in a shuffled order on CI: each
 * one puts the clock where it needs it and signs in again there (a session lasts 30 days on this
 * clock, and other tests move it by months), uses its own channels, counts only what reached the
 * peers while it ran, and puts back the settings it changes.
 */
describe('quiet hours in the pipeline', () => {
  // Tuesday 2026-01-13, 23:30 in Berlin: inside 22:00–07:00, which ends at 06:00Z.
  const NIGHT = Date.parse('2026-01-13T22:30:00Z');
  const clock = new ManualClock(NIGHT);
  const MORNING = Date.parse('2026-01-14T06:00:00Z');
  let herald: TestHerald;
  let ntfy: NtfyPeer;
  let bark: BarkPeer;
  let telegram: TelegramPeer;
  let discord: DiscordPeer;
  let dingtalk: DingTalkPeer;
  let wecom: WeComPeer;
  let smtp: SmtpSink;
  const BARK_KEY = 'ynJ5Ft4atkMkWeo2PAvFhF';
  const start = () =>
    startTestHerald({
      clock,
      startDispatcher: false,
      // One attempt only: a hold that spent one would fail the delivery.
      settings: { retry: { maxAttempts: 1 } },
      ...(herald && { dataDir: herald.dataDir, setup: false }),
    });

  beforeAll(async () => {
    const now = () => clock.now();
    [ntfy, bark, telegram, discord, dingtalk, wecom, smtp] = await Promise.all([
      startNtfyPeer({ now }),
      startBarkPeer({ deviceKeys: [BARK_KEY], now }),
      startTelegramPeer({ now }),
      startDiscordPeer({ now }),
      startDingTalkPeer({ now }),
      startWeComPeer({ now }),
      startSmtpSink({ mode: 'plain', users: {} }),
    ]);
    herald = await start();
  });
  afterAll(async () => {
    await herald?.close(true);
    await Promise.all(
      [ntfy, bark, telegram, discord, dingtalk, wecom, smtp].map((p) => p?.close()),
    );
  });

  const run = () => herald.server.ctx.dispatcher.runDue();
  const night = { timezone: 'Europe/Berlin', start: '22:00', end: '07:00' };
  const rule = (ownerType: string, ownerId: number, action: string, extra = {}) =>
    herald.console.ok('POST', '/quiet-hours', {
      ownerType,
      ownerId,
      ...night,
      action,
      ...extra,
    });
  const deliveryOf = async (title: string) => {
    const d = await Delivery.findOne({ where: { title } });
    if (!d) throw new Error(`no delivery "${title}"`);
    return d;
  };
  /** What reached ntfy since the test's `startAt`. */
  let ntfyBefore = 0;
  const ntfyTitles = () => ntfy.received.slice(ntfyBefore).map((m) => m.title);
  /** Moves the clock to `at` and signs in there: a session from another test's time may be over. */
  const startAt = async (at: number) => {
    clock.set(at);
    await herald.console.ok('POST', '/login', ADMIN);
    ntfyBefore = ntfy.received.length;
  };

  it('holds a night’s messages until 07:00 Berlin, through a restart, and releases them together', async () => {
    await startAt(NIGHT);
    const channel = await herald.createChannel('ntfy', { serverUrl: ntfy.url, topic: 'held' });
    const { token } = await herald.createTemplate({ text: 'disk full' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    const held = await rule('channel', channel.id, 'hold');
    for (const title of ['held 1', 'held 2', 'held 3']) await herald.sendV2({ token, title });
    await run();
    expect(ntfyTitles()).toEqual([]);

    const first = await deliveryOf('held 1');
    expect(first).toMatchObject({ status: 'queued', attempts: 0 });
    expect(Number(first.nextAttemptAt)).toBe(MORNING);
    const log = await herald.console.ok('GET', `/logs/${first.sendId}`);
    expect(log.status).toBe('pending');
    expect(log.deliveries[0]).toMatchObject({
      status: 'queued',
      attempts: 0,
      nextAttemptAt: new Date(MORNING).toISOString(),
      lastError: `held by quiet-hours rule ${held.id} until ${new Date(MORNING).toISOString()}`,
      attemptLog: [],
    });

    // A priority at the rule's bypass (5) goes at once; one below it waits with the rest.
    await herald.sendV2({ token, title: 'urgent', priority: 5 });
    await herald.sendV2({ token, title: 'high', priority: 4 });
    await run();
    expect(ntfyTitles()).toEqual(['urgent']);

    await herald.close();
    herald = await start();
    await herald.console.ok('POST', '/login', ADMIN);
    clock.set(MORNING - 1);
    await run();
    expect(ntfyTitles()).toEqual(['urgent']);
    clock.set(MORNING);
    await run();
    // Claimed together in their queue order, they are sent as one batch (concurrently).
    expect(ntfyTitles()[0]).toBe('urgent');
    expect(ntfyTitles().slice(1).sort()).toEqual(['held 1', 'held 2', 'held 3', 'high']);
    const released = await deliveryOf('held 3');
    expect(released).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('drops a message as suppressed, with the rule in its reason, and sends nothing', async () => {
    await startAt(NIGHT);
    const channel = await herald.createChannel('ntfy', { serverUrl: ntfy.url, topic: 'dropped' });
    const { token } = await herald.createTemplate({ text: 'backup ok' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    const drop = await rule('channel', channel.id, 'drop', { bypassPriority: 4 });
    await herald.sendV2({ token, title: 'nightly backup ok' });
    await herald.sendV2({ token, title: 'backup failed', priority: 4 });
    await run();
    expect(ntfyTitles()).toEqual(['backup failed']);

    const dropped = await deliveryOf('nightly backup ok');
    const log = await herald.console.ok('GET', `/logs/${dropped.sendId}`);
    expect(log.status).toBe('suppressed');
    expect(log.deliveries[0]).toMatchObject({
      status: 'suppressed',
      lastError: expect.stringContaining(`dropped by quiet-hours rule ${drop.id}`),
    });
    expect(log.deliveries[0].attemptLog.map((a: { outcome: string }) => a.outcome)).toEqual([
      'suppressed',
    ]);
    // Nothing to retry: it was not sent on purpose.
    const retry = await herald.console.post(`/deliveries/${dropped.id}/retry`);
    expect(retry.status).toBe(409);
  });

  it('softens: each platform gets its own silent mode, and nobody is @mentioned', async () => {
    await startAt(NIGHT);
    const channels = {
      ntfy: await herald.createChannel('ntfy', { serverUrl: ntfy.url, topic: 'soft' }),
      bark: await herald.createChannel('bark', { serverUrl: bark.url, deviceKey: BARK_KEY }),
      telegram: await herald.createChannel('telegram', {
        botToken: telegram.token,
        chatId: '-1001234567890',
        serverUrl: telegram.url,
      }),
      discord: await herald.createChannel('discord', { webhookUrl: discord.url }),
      dingtalk: await herald.createChannel('dingtalk', { webhookUrl: dingtalk.url }),
      wecom: await herald.createChannel('wecom', { webhookUrl: wecom.url }),
      email: await herald.createChannel('email', {
        host: smtp.host,
        port: smtp.port,
        secure: 'none',
        from: 'herald@example.com',
      }),
    };
    const { token } = await herald.createTemplate(
      { text: 'queue backlog at {{n}}', atMobiles: '13800138000' },
      Object.entries(channels).map(([kind, c]) => ({
        channelId: c.id,
        contentType: 'text',
        ...(kind === 'email' && { recipient: 'ops@example.com' }),
      })),
    );
    for (const c of Object.values(channels)) await rule('channel', c.id, 'soften');

    const counts = () => ({
      ntfy: ntfy.received.length,
      bark: bark.received.length,
      telegram: telegram.received.length,
      discord: discord.received.length,
      dingtalk: dingtalk.received.length,
      wecom: wecom.received.length,
      email: smtp.received.length,
    });
    const sendAndSee = async (title: string) => {
      const before = counts();
      const res = await herald.sendV2({ token, title, priority: 4, placeholders: { n: 9 } });
      expect(res.body.code).toBe(200);
      await run();
      const header = (raw: string, name: string) =>
        new RegExp(`^${name}: (.*)$`, 'im').exec(raw.split(/\r?\n\r?\n/)[0])?.[1];
      const mail = smtp.received[before.email];
      const wecomBody = wecom.received[before.wecom]?.text as Record<string, unknown> | undefined;
      return {
        ntfy: ntfy.received[before.ntfy]?.priority,
        bark: bark.received[before.bark]?.level,
        telegram: telegram.received[before.telegram]?.silent,
        discord: discord.received[before.discord]?.silent,
        dingtalk: dingtalk.received[before.dingtalk]?.firedMentions,
        wecom: wecomBody?.mentioned_mobile_list ?? [],
        email: mail && {
          xPriority: header(mail.raw, 'X-Priority'),
          importance: header(mail.raw, 'Importance'),
        },
      };
    };

    // 23:30 in Berlin: softened.
    expect(await sendAndSee('soft at night')).toEqual({
      ntfy: 2,
      bark: 'passive',
      telegram: true,
      discord: true,
      dingtalk: [],
      wecom: [],
      email: { xPriority: '5 (Lowest)', importance: 'Low' },
    });
    // 07:00: as usual, priority 4 and its mention.
    clock.set(Date.parse('2026-01-15T06:00:00Z'));
    expect(await sendAndSee('loud by day')).toEqual({
      ntfy: 4,
      bark: 'timeSensitive',
      telegram: false,
      discord: false,
      dingtalk: ['13800138000'],
      wecom: ['13800138000'],
      email: { xPriority: '1 (Highest)', importance: 'High' },
    });
  });

  it('ends a window across midnight and the spring-forward change at 07:00 CEST', async () => {
    await startAt(NIGHT);
    // An instance's own rule; its channel has none.
    const channel = await herald.createChannel('ntfy', { serverUrl: ntfy.url, topic: 'dst' });
    const { template, token } = await herald.createTemplate({ text: 'dst' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    const instances = await herald.console.ok('GET', `/templates/${template.id}/instances`);
    await rule('instance', (instances.items ?? instances)[0].id, 'hold');
    // 2026-03-29 01:30 CET (00:30Z): at 02:00 the clocks go to 03:00; 07:00 CEST is 05:00Z.
    clock.set(Date.parse('2026-03-29T00:30:00Z'));
    await herald.sendV2({ token, title: 'over the gap' });
    await run();
    const d = await deliveryOf('over the gap');
    expect(Number(d.nextAttemptAt)).toBe(Date.parse('2026-03-29T05:00:00Z'));
    clock.set(Date.parse('2026-03-29T05:00:00Z'));
    await run();
    expect(ntfyTitles()).toEqual(['over the gap']);
  });

  it('never lets a hold expire a delivery: days held, past retention, it is kept and waits', async () => {
    await startAt(NIGHT);
    const channel = await herald.createChannel('ntfy', { serverUrl: ntfy.url, topic: 'week' });
    const { token } = await herald.createTemplate({ text: 'week' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    // Every day, all day: quiet for the whole week ahead (meeting windows are one).
    await rule('channel', channel.id, 'hold', { start: '00:00', end: '00:00' });
    const { retention } = await herald.console.ok('GET', '/settings');
    // Put back for the other tests: a prune in one of them would use a day's retention.
    onTestFinished(async () => {
      await herald.console.ok('PUT', '/settings', { retention });
    });
    await herald.console.ok('PUT', '/settings', {
      retention: { sendsDays: 1, messagesDays: 0, auditDays: 365 },
    });
    await herald.sendV2({ token, title: 'held for days' });
    // A control, sent at the same time through a channel without quiet hours: pruned.
    const loud = await herald.createChannel('ntfy', { serverUrl: ntfy.url, topic: 'loud' });
    const control = await herald.createTemplate({ text: 'loud' }, [
      { channelId: loud.id, contentType: 'text' },
    ]);
    await herald.sendV2({ token: control.token, title: 'sent and pruned' });
    await run();
    expect(await Delivery.findOne({ where: { title: 'sent and pruned' } })).not.toBeNull();
    const held = await deliveryOf('held for days');
    expect(Number(held.nextAttemptAt)).toBeGreaterThan(clock.now() + 6 * 86_400_000);
    // Rows are stamped with the wall clock: three days past it, both are older than a day.
    clock.set(Date.now() + 3 * 86_400_000);
    await herald.console.ok('POST', '/login', ADMIN);
    await herald.console.ok('POST', '/maintenance/prune');
    await run();
    expect(await Delivery.findOne({ where: { title: 'sent and pruned' } })).toBeNull();
    const after = await deliveryOf('held for days');
    expect(after).toMatchObject({ status: 'queued', attempts: 0 });
    expect(ntfyTitles()).not.toContain('held for days');
  });
});
