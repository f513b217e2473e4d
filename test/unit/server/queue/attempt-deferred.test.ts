import { describe, expect, it } from 'vitest';

import type { AdapterRuntime } from '../../../../server/channels/channel-adapter';
import { memoryDayCounts } from '../../../../server/channels/day-counts';
import { DeliveryError } from '../../../../server/channels/delivery-error';
import { createChannelRegistry } from '../../../../server/channels/registry';
import { retryPolicySchema } from '../../../../server/config/settings-schema';
import { runAttempt, type DeliveryKind } from '../../../../server/queue/attempt';
import { Pacer } from '../../../../server/queue/pacer';
import type { ClaimedDelivery } from '../../../../server/queue/store/hot-path-rows';

const delivery = (over: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
  id: 9,
  lease: 'lease-1',
  sendId: 3,
  channelId: 4,
  title: 't',
  content: 'c',
  contentType: 'text',
  url: null,
  recipient: null,
  mentions: { mobiles: [], userIds: [], all: false },
  priority: null,
  repeats: 0,
  templateCode: null,
  attempts: 0,
  nextAttemptAt: 0,
  ...over,
});

function deps(over: { kinds?: Map<string, DeliveryKind>; runtime?: AdapterRuntime } = {}) {
  return {
    registry: createChannelRegistry(),
    runtime: over.runtime ?? ({} as AdapterRuntime),
    clock: { now: () => 1_000 },
    pacer: new Pacer(),
    retryPolicy: () => retryPolicySchema.parse({ maxAttempts: 2, baseDelayMs: 50, jitter: 0 }),
    loadChannel: async () => ({
      type: 'pushplus',
      config: { token: 't', template: 'auto', dailyLimit: 1, baseUrl: 'http://127.0.0.1:9' },
    }),
    deliveryKinds: over.kinds,
  };
}

describe('runAttempt() with DeliveryError.deferred', () => {
  it('is "not now" with the reason, not an outcome, even on the last attempt', async () => {
    const held = new Map([
      ['held', { send: () => Promise.reject(DeliveryError.deferred('quiet hours', 5_000)) }],
    ]);
    const run = await runAttempt(
      delivery({ channelType: 'held', attempts: 1 }),
      deps({ kinds: held }),
    );
    expect(run).toEqual({ deferUntil: 5_000, reason: 'quiet hours' });
  });

  it('a PushPlus channel whose day is used up defers before any request', async () => {
    const dayCounts = memoryDayCounts();
    const runtime = { clock: { now: () => 1_000 }, dayCounts } as unknown as AdapterRuntime;
    // The one send of the day is taken: the next waits for midnight in China (16:00 UTC).
    await dayCounts.take(4, '1970-01-01', 1);
    const run = await runAttempt(delivery(), deps({ runtime }));
    expect(run).toMatchObject({ deferUntil: 16 * 3_600_000 });
    expect((run as { reason: string }).reason).toContain('PushPlus daily limit reached: 1 of 1');
  });

  it('a deferred error is no failure: its own flags say so', () => {
    const err = DeliveryError.deferred('daily limit', 42);
    expect(err).toMatchObject({ deferUntil: 42, message: 'daily limit' });
    expect(DeliveryError.transient('x').deferUntil).toBeUndefined();
  });
});
