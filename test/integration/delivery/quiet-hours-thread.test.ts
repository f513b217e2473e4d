import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { Delivery } from '../../../server/db/models';
import type { DeliveryThread } from '../../../server/queue/delivery-thread/delivery-thread';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { onPostgres } from '../../helpers/test-database';

/**
 * Quiet hours on the delivery thread (HERALD_DELIVERY_THREAD, SQLite only): the thread asks the
 * same rules, and a rule made on the main thread after the thread started counts at its next
 * attempt (the configuration version travels to the thread). The rule covers the whole day in
 * UTC, so the system clock the thread keeps is always inside it.
 */
describe.skipIf(onPostgres())('quiet hours on the delivery thread', () => {
  let herald: TestHerald;
  let peer: HttpPeer;

  beforeAll(async () => {
    vi.stubEnv('HERALD_DELIVERY_THREAD', 'on');
    herald = await startTestHerald();
    peer = await startHttpPeer();
  });
  afterAll(async () => {
    await herald?.close(true);
    await peer?.close();
    vi.unstubAllEnvs();
  });

  const finished = (title: string) =>
    herald.waitFor(async () => {
      const d = await Delivery.findOne({ where: { title } });
      return d && !['queued', 'sending', 'retrying'].includes(d.status) ? d : null;
    });

  it('drops on the thread by a rule made after it started', async () => {
    expect((herald.server.ctx.deliveryThread as DeliveryThread).running).toBe(true);
    const channel = await herald.createChannel('webhook', { url: `${peer.url}/hook` });
    const { token } = await herald.createTemplate({ text: 'body' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'before the rule' });
    expect((await finished('before the rule')).status).toBe('sent');

    await herald.console.ok('POST', '/quiet-hours', {
      ownerType: 'channel',
      ownerId: channel.id,
      timezone: 'UTC',
      start: '00:00',
      end: '00:00',
      action: 'drop',
    });
    await herald.sendV2({ token, title: 'after the rule' });
    const dropped = await finished('after the rule');
    expect(dropped.status).toBe('suppressed');
    expect(dropped.lastError).toMatch(/^dropped by quiet-hours rule \d+/);
    expect(peer.received.map((r) => (r.json as { title: string }).title)).toEqual([
      'before the rule',
    ]);
  });
});
