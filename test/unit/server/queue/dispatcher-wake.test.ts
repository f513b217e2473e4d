import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { AdapterRuntime } from '../../../../server/channels/channel-adapter';
import { createChannelRegistry } from '../../../../server/channels/registry';
import { openDatabase, type Database } from '../../../../server/db/database';
import { migrate } from '../../../../server/db/migrate';
import { initModels } from '../../../../server/db/models';
import { HeraldEvents } from '../../../../server/events';
import { systemClock } from '../../../../server/lib/clock';
import { DeliveryState } from '../../../../server/queue/delivery-state';
import { Dispatcher } from '../../../../server/queue/dispatcher';

describe('Dispatcher wake-ups', () => {
  let dir: string;
  let db: Database;
  let state: DeliveryState;
  let dispatcher: Dispatcher;
  const stored: string[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-wake-'));
    db = await openDatabase(join(dir, 'wake.db'));
    initModels(db.sequelize);
    await migrate(db.sequelize);
    state = new DeliveryState({
      writer: db.writer,
      read: db.read,
      events: new HeraldEvents(),
      clock: systemClock,
    });
    const runtime = {
      storeHostedMessage: async (m: { title: string }) => {
        stored.push(m.title);
        return { id: stored.length };
      },
    } as unknown as AdapterRuntime;
    dispatcher = new Dispatcher({
      state,
      registry: createChannelRegistry(),
      runtime,
      clock: systemClock,
      retryPolicy: () => ({ maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0 }),
      loadChannel: async () => ({ type: 'hosted', config: {} }),
    });
  });
  afterEach(async () => {
    await dispatcher.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const accept = (title: string) =>
    state.accept({
      send: {
        api: 'v2',
        taskId: null,
        templateId: null,
        sourceName: 'wake test',
        title,
        text: 'x',
        html: null,
        markdown: null,
        url: null,
        request: {},
        deliveryCount: 1,
      },
      deliveries: [
        {
          instanceId: null,
          channelId: 1,
          channelType: 'hosted',
          contentType: 'text',
          recipient: null,
          title,
          content: 'x',
          url: null,
          mentions: { mobiles: [], userIds: [], all: false },
        },
      ],
    });

  it('a wake-up that arrives while the loop looks for its next timer is not lost', async () => {
    // The loop's last step reads when the next delivery is due. A send committed (and its
    // wake-up given) after that read started must still be claimed now, not when the idle
    // timer (30 s) fires: V1's synchronous answer waits on it.
    const nextDueAt = state.nextDueAt.bind(state);
    let reading!: () => void;
    const readStarted = new Promise<void>((r) => (reading = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first = true;
    state.nextDueAt = async () => {
      const answer = await nextDueAt();
      if (first) {
        first = false;
        reading();
        await gate;
      }
      return answer;
    };
    await dispatcher.start();
    await readStarted;

    const { deliveryIds } = await accept('arrived during the read');
    dispatcher.wake();
    release();

    const results = await dispatcher.waitForAttempts(deliveryIds, 5_000);
    expect(results.get(deliveryIds[0])?.status).toBe('sent');
    expect(stored).toEqual(['arrived during the read']);
  });
});
