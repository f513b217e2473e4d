import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * The reader's priority over real HTTP: each hosted message carries its send's priority, the
 * list sorts 5, then 4, then the rest with `sort=priority`, and the live stream announces it.
 */
describe('hosted messages: priority', () => {
  let herald: TestHerald;
  let token: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    const hosted = await herald.createChannel('hosted', {}, 'inbox');
    ({ token } = await herald.createTemplate({ text: 'prio body' }, [
      { channelId: hosted.id, contentType: 'text' },
    ]));
  });
  afterAll(() => herald.close(true));

  const titles = (page: { items: Array<{ title: string }> }) => page.items.map((m) => m.title);

  it('lists priority, newest first by default and 5, 4, then the rest with sort=priority', async () => {
    const stream = await streamEvents(herald);
    const sends: Array<[string, number | undefined]> = [
      ['prio five a', 5],
      ['prio none', undefined],
      ['prio four', 4],
      ['prio two', 2],
      ['prio five b', 5],
    ];
    for (const [title, priority] of sends) {
      const res = await herald.sendV2({ token, title, ...(priority ? { priority } : {}) });
      expect(res.body.code).toBe(200);
    }
    const newest = await herald.waitFor(async () => {
      const page = await herald.console.ok('GET', '/messages');
      return page.total === 5 ? page : null;
    });
    expect(titles(newest)).toEqual([
      'prio five b',
      'prio two',
      'prio four',
      'prio none',
      'prio five a',
    ]);
    expect(newest.items.map((m: { priority: number | null }) => m.priority)).toEqual([
      5,
      2,
      4,
      null,
      5,
    ]);

    const first = ['prio five b', 'prio five a', 'prio four', 'prio two', 'prio none'];
    expect(titles(await herald.console.ok('GET', '/messages?sort=priority'))).toEqual(first);
    expect(titles(await herald.console.ok('GET', '/messages?sort=newest'))).toEqual(titles(newest));
    // Paging follows the same order, and so do search and the unread filter.
    const second = await herald.console.ok('GET', '/messages?sort=priority&page=2&pageSize=2');
    expect(titles(second)).toEqual(['prio four', 'prio two']);
    await herald.waitFor(
      async () => (await herald.console.ok('GET', '/messages?q=prio')).total === 5,
    );
    expect(titles(await herald.console.ok('GET', '/messages?q=prio&sort=priority'))).toEqual(first);
    await herald.console.ok('PATCH', `/messages/${newest.items[0].id}`, { read: true });
    expect(titles(await herald.console.ok('GET', '/messages?unread=true&sort=priority'))).toEqual(
      first.slice(1),
    );
    const detail = await herald.console.ok('GET', `/messages/${newest.items[2].id}`);
    expect(detail.priority).toBe(4);

    await stream.until((text) => (text.match(/event: message/g) ?? []).length >= 5);
    const events = [...stream.text.matchAll(/event: message\ndata: (.*)\n/g)].map(
      (m) => JSON.parse(m[1]) as { title: string; priority: number | null },
    );
    expect(events.map((e) => [e.title, e.priority])).toEqual(
      sends.map(([title, priority]) => [title, priority ?? null]),
    );
    stream.close();
  });

  it('refuses an unknown sort', async () => {
    const res = await herald.console.get('/messages?sort=oldest');
    expect(res.status).toBe(400);
  });
});

/** Reads the console's event stream into `text` until `done(text)`. */
async function streamEvents(h: TestHerald) {
  const ac = new AbortController();
  const res = await fetch(`${h.url}/api/console/events`, {
    headers: { Cookie: h.console.cookie },
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  return {
    get text() {
      return text;
    },
    async until(done: (text: string) => boolean) {
      while (!done(text)) {
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error(`the stream ended: ${text}`);
        text += new TextDecoder().decode(value);
      }
    },
    close: () => ac.abort(),
  };
}
