import { describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../../server/channels/delivery-error';
import { createChannelRegistry } from '../../../../server/channels/registry';
import type { AdapterRuntime } from '../../../../server/channels/channel-adapter';
import { retryPolicySchema } from '../../../../server/config/settings-schema';
import { runAttempt, type DeliveryKind } from '../../../../server/queue/attempt';
import { Pacer } from '../../../../server/queue/pacer';
import type { ClaimedDelivery } from '../../../../server/queue/store/hot-path-rows';

/** A push of a hosted message: a delivery on the hosted channel whose own kind is `web-push`. */
const delivery: ClaimedDelivery = {
  id: 9,
  lease: 'lease-1',
  sendId: 3,
  channelId: 1,
  channelType: 'web-push',
  title: 't',
  content: 'c',
  contentType: 'text',
  url: null,
  recipient: 'vera · Phone',
  mentions: { mobiles: [], userIds: [], all: false },
  priority: null,
  repeats: 0,
  templateCode: null,
  attempts: 0,
  nextAttemptAt: 0,
};

function deps(kinds?: Map<string, DeliveryKind>) {
  return {
    registry: createChannelRegistry(),
    runtime: {} as AdapterRuntime,
    clock: { now: () => 1_000 },
    pacer: new Pacer(),
    retryPolicy: () => retryPolicySchema.parse({ baseDelayMs: 50, jitter: 0 }),
    // The hosted channel would store the message again: a push must never reach it.
    loadChannel: () => Promise.reject(new Error('the channel was loaded')),
    deliveryKinds: kinds,
  };
}

describe('runAttempt() with a delivery kind of its own', () => {
  it('sends it through its kind, never its channel', async () => {
    const kinds = new Map([['web-push', { send: async () => ({ reply: 'HTTP 201' }) }]]);
    const run = await runAttempt(delivery, deps(kinds));
    expect(run).toMatchObject({
      outcome: { id: 9, lease: 'lease-1', status: 'sent', outcome: 'sent', reply: 'HTTP 201' },
      channelType: 'web-push',
    });
  });

  it('retries a transient failure with the backoff and fails a permanent one', async () => {
    const busy = new Map([
      ['web-push', { send: () => Promise.reject(DeliveryError.transient('HTTP 429')) }],
    ]);
    expect(await runAttempt(delivery, deps(busy))).toMatchObject({
      outcome: { status: 'retrying', outcome: 'transient', error: 'HTTP 429', retryAt: 1_050 },
    });
    const gone = new Map([
      ['web-push', { send: () => Promise.reject(DeliveryError.permanent('HTTP 410')) }],
    ]);
    expect(await runAttempt(delivery, deps(gone))).toMatchObject({
      outcome: { status: 'failed', outcome: 'permanent', error: 'HTTP 410', retryAt: null },
    });
  });

  it('fails it where the process has no such kind, rather than hand it to the channel', async () => {
    expect(await runAttempt(delivery, deps())).toMatchObject({
      outcome: { status: 'failed', error: 'this process cannot deliver "web-push"' },
      channelType: 'web-push',
    });
  });
});
