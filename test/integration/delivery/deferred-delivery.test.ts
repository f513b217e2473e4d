import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chinaDay, nextChinaMidnight, sqlDayCounts } from '../../../server/channels/day-counts';
import { Delivery } from '../../../server/db/models';
import { startPushPlusPeer, type PushPlusPeer } from '../../fixtures/peers/pushplus-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';
import { openFolderDatabase } from '../../helpers/test-database';

/**
 * DeliveryError.deferred (docs/architecture.md "Deferred deliveries"), through a real Herald and
 * PushPlus's daily limit: a delivery waits, `queued` with its release time and reason in the
 * send log, spends no attempt, survives a restart and goes once its time has come.
 */
describe('deferred deliveries', () => {
  // 08:00 UTC: 16:00 in China, eight hours before its midnight.
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  let herald: TestHerald;
  let peer: PushPlusPeer;
  let throttling: PushPlusPeer;

  beforeAll(async () => {
    [peer, throttling] = await Promise.all([
      startPushPlusPeer({ now: () => clock.now() }),
      // An account PushPlus restricts after two requests today.
      startPushPlusPeer({ now: () => clock.now(), dailyRequests: 2 }),
    ]);
    // One attempt only: a deferral that spent one would fail the delivery.
    herald = await startTestHerald({
      clock,
      startDispatcher: false,
      settings: { retry: { maxAttempts: 1 } },
    });
  });
  afterAll(async () => {
    await herald?.close(true);
    await Promise.all([peer?.close(), throttling?.close()]);
  });

  const run = () => herald.server.ctx.dispatcher.runDue();
  const deliveryOf = async (title: string) => {
    const d = await Delivery.findOne({ where: { title } });
    if (!d) throw new Error(`no delivery "${title}"`);
    return d;
  };
  async function channelWith(config: Record<string, unknown>) {
    const channel = await herald.createChannel('pushplus', config);
    const { token } = await herald.createTemplate({ text: 'disk full' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    return { channelId: channel.id as number, token };
  }

  it('past the daily limit a delivery waits for midnight (China time) with its reason, through a restart', async () => {
    const { token } = await channelWith({
      token: peer.token,
      baseUrl: peer.baseUrl,
      dailyLimit: 1,
    });
    await herald.sendV2({ token, title: 'limit 1' });
    await run();
    for (const title of ['limit 2', 'limit 3']) await herald.sendV2({ token, title });
    await run();
    expect(peer.received.map((m) => m.title)).toEqual(['limit 1']);

    const midnight = nextChinaMidnight(clock.now());
    const waiting = await deliveryOf('limit 2');
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
    expect(Number(waiting.nextAttemptAt)).toBe(midnight);
    const log = await herald.console.ok('GET', `/logs/${waiting.sendId}`);
    expect(log.status).toBe('pending');
    expect(log.deliveries[0]).toMatchObject({
      status: 'queued',
      attempts: 0,
      nextAttemptAt: new Date(midnight).toISOString(),
      attemptLog: [],
    });
    expect(log.deliveries[0].lastError).toContain('PushPlus daily limit reached: 1 of 1');
    expect(log.deliveries[0].lastError).toContain('midnight, China time');

    // Nothing is due before midnight, and a restart keeps the wait and the day's count.
    clock.advance(midnight - clock.now() - 1);
    expect(await run()).toBe(0);
    const { dataDir } = herald;
    await herald.close(false);
    herald = await startTestHerald({
      dataDir,
      clock,
      startDispatcher: false,
      settings: { retry: { maxAttempts: 1 } },
    });
    expect(await run()).toBe(0);
    expect(await deliveryOf('limit 3')).toMatchObject({ status: 'queued', attempts: 0 });

    // Midnight: one more goes; the other waits again, still without spending its one attempt.
    clock.advance(1);
    expect(await run()).toBe(2);
    expect(peer.received).toHaveLength(2);
    const second = peer.received[1].title;
    const third = second === 'limit 2' ? 'limit 3' : 'limit 2';
    const went = await deliveryOf(second);
    expect(went).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    const again = await deliveryOf(third);
    expect(again).toMatchObject({ status: 'queued', attempts: 0 });
    expect(Number(again.nextAttemptAt)).toBe(midnight + 86_400_000);

    clock.advance(86_400_000);
    await run();
    expect(await deliveryOf(third)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(peer.received.map((m) => m.title)).toEqual(['limit 1', second, third]);
  });

  it('PushPlus code 900 stops the channel until the next day, asking PushPlus no more', async () => {
    const { token } = await channelWith({ token: throttling.token, baseUrl: throttling.baseUrl });
    for (const title of ['t 1', 't 2', 't 3']) await herald.sendV2({ token, title });
    await run();
    // Two went; the third request was refused with 900 (the three ran at once, in any order).
    expect(throttling.received).toHaveLength(2);
    expect(throttling.requests).toBe(3);
    const [refused] = ['t 1', 't 2', 't 3'].filter(
      (t) => !throttling.received.some((m) => m.title === t),
    );
    // A send after the refusal waits without asking PushPlus.
    await herald.sendV2({ token, title: 't 4' });
    await run();
    expect(throttling.requests).toBe(3);
    const midnight = nextChinaMidnight(clock.now());
    for (const title of [refused, 't 4']) {
      const d = await deliveryOf(title);
      expect(d).toMatchObject({ status: 'queued', attempts: 0 });
      expect(Number(d.nextAttemptAt)).toBe(midnight);
      expect(d.lastError).toContain('PushPlus code 900');
    }
    clock.advance(midnight - clock.now());
    await run();
    expect(throttling.received.map((m) => m.title).sort()).toEqual(['t 1', 't 2', 't 3', 't 4']);
  });

  it('two database connections taking the last sends at once never pass the limit', async () => {
    const { channelId } = await channelWith({ token: peer.token, baseUrl: peer.baseUrl });
    const other = await openFolderDatabase(herald.dataDir);
    try {
      const here = sqlDayCounts(herald.server.ctx.writeLock);
      const there = sqlDayCounts(other.writer);
      const day = chinaDay(clock.now());
      const taken = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 ? here : there).take(channelId, day, 7)),
      );
      expect(taken.filter((t) => t.taken)).toHaveLength(7);
      expect(taken.filter((t) => !t.taken).every((t) => t.sent === 7)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
