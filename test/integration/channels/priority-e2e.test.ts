import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

/**
 * A send's priority through the whole path: the send API, the queue's claim and the custom
 * webhook's default body, as a receiver sees it.
 */
describe('priority from the send API to the webhook receiver', () => {
  let herald: TestHerald;
  let receiver: HttpPeer;
  let token: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    receiver = await startHttpPeer();
    const ch = await herald.createChannel('webhook', { url: receiver.url });
    ({ token } = await herald.createTemplate(
      { text: 'disk {{n}}', placeholders: [{ key: 'n', label: 'N' }] },
      [{ channelId: ch.id, contentType: 'text' }],
    ));
  });
  afterAll(async () => {
    await herald.close(true);
    await receiver.close();
  });

  it('a priority (a number or ntfy’s name) reaches the body; a send without one sends the body as before', async () => {
    for (const priority of [5, 'low', undefined]) {
      const res = await herald.sendV2({
        token,
        title: `p ${String(priority)}`,
        placeholders: { n: '98%' },
        ...(priority === undefined ? {} : { priority }),
      });
      expect(res.body.code).toBe(200);
    }
    const got = await receiver.waitForRequests(3);
    const byTitle = Object.fromEntries(
      got.map((r) => [(r.json as { title: string }).title, r.json]),
    );
    const base = { content: 'disk 98%', url: '', format: 'text' };
    expect(byTitle).toEqual({
      'p 5': { title: 'p 5', ...base, priority: 5 },
      'p low': { title: 'p low', ...base, priority: 2 },
      'p undefined': { title: 'p undefined', ...base },
    });
  });
});
