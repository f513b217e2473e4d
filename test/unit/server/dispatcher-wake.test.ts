import { describe, expect, it, vi } from 'vitest';

import { createChannelRegistry } from '../../../server/channels/registry';
import type { DeliveryState } from '../../../server/queue/delivery-state';
import { Dispatcher } from '../../../server/queue/dispatcher';
import { adapterRuntime } from '../../fixtures/peers/outbound-message';

describe('Dispatcher wake-ups', () => {
  it('looks at the table again when woken while it plans its next timer', async () => {
    let claims = 0;
    let releaseFirstLook!: (next: number | null) => void;
    const firstLook = new Promise<number | null>((r) => (releaseFirstLook = r));
    let looks = 0;
    const state = {
      recover: async () => undefined,
      claim: async () => {
        claims += 1;
        return [];
      },
      // The first look for the next due delivery is held open, as a slow read would be.
      nextDueAt: () => (++looks === 1 ? firstLook : Promise.resolve(null)),
    } as unknown as DeliveryState;
    const dispatcher = new Dispatcher({
      state,
      registry: createChannelRegistry(),
      runtime: adapterRuntime(),
      clock: { now: () => 0 },
      retryPolicy: () => ({ maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, jitter: 0 }),
      loadChannel: async () => null,
    });
    await dispatcher.start();
    await vi.waitFor(() => expect(looks).toBe(1));
    expect(claims).toBe(1);

    // A send commits its deliveries and wakes the loop before the look has answered; the look
    // may have read the table before the commit, so only another claim finds them.
    dispatcher.wake();
    releaseFirstLook(null);
    await vi.waitFor(() => expect(claims).toBe(2));
    await dispatcher.stop();
  });
});
