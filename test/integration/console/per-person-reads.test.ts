import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import pg from 'pg';

import { HostedMessage, User } from '../../../server/db/models';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { keptDatabases, onPostgres } from '../../helpers/test-database';
import { hashPassword } from '../../../server/features/auth/password-hash';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * Read state per person over real HTTP (issue 25): two people on one Herald, each with their
 * own read flags, unread filter, count and read-all, and live `read` events only for
 * themselves. Runs on PostgreSQL too (HERALD_TEST_DATABASE=postgres).
 */
describe('hosted messages: read state per person', () => {
  let herald: TestHerald;
  let a: ConsoleClient;
  let aId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ startDispatcher: false });
    a = herald.console;
    aId = (await a.ok('GET', '/me')).user.id;
  });
  afterAll(() => herald.close(true));

  let people = 0;
  /** A second person (a viewer: reading is all the reader needs), signed in. */
  async function person(): Promise<{ client: ConsoleClient; id: number }> {
    const username = `teammate-${++people}-${Date.now()}`;
    const passwordHash = await hashPassword('teammate password');
    const user = await herald.server.ctx.writeLock.run(() =>
      User.create({ username, passwordHash, role: 'viewer' }),
    );
    const client = new ConsoleClient(herald.url);
    await client.ok('POST', '/login', { username, password: 'teammate password' });
    // Messages stored in the same millisecond as the user would count as already there.
    await new Promise((r) => setTimeout(r, 5));
    return { client, id: user.id };
  }

  /** Stores hosted messages as the hosted channel does, one millisecond apart; answers their ids. */
  async function messages(...titles: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const title of titles) {
      const m = await herald.server.ctx.writeLock.run(() =>
        HostedMessage.create({
          channelId: null,
          deliveryId: null,
          title,
          content: `${title} body`,
          format: 'text',
          url: null,
        }),
      );
      ids.push(m.id);
      await new Promise((r) => setTimeout(r, 2));
    }
    return ids;
  }

  const count = async (c: ConsoleClient) => (await c.ok('GET', '/messages/unread-count')).count;
  const readOf = async (c: ConsoleClient, id: number) =>
    (await c.ok('GET', `/messages/${id}`)).read as boolean;
  /** The person's unread list (ids), checked against their count and the list's unreadCount. */
  async function unreadIds(c: ConsoleClient, query = ''): Promise<number[]> {
    const page = await c.ok('GET', `/messages?unread=true&pageSize=100${query}`);
    const n = await count(c);
    expect(page.unreadCount).toBe(n);
    if (!query) expect(page.total).toBe(n);
    expect(page.items.every((m: any) => m.read === false)).toBe(true);
    return page.items.map((m: any) => m.id);
  }

  it('keeps each person’s read flags, unread list and count apart, read-all included', async () => {
    await a.ok('POST', '/messages/read-all');
    const b = await person();
    const [m1, m2, m3] = await messages('first', 'second', 'third');

    expect(await count(a)).toBe(3);
    expect(await count(b.client)).toBe(3);

    // A reads one: B still sees it unread.
    expect((await a.ok('PATCH', `/messages/${m1}`, { read: true })).read).toBe(true);
    expect(await readOf(a, m1)).toBe(true);
    expect(await readOf(b.client, m1)).toBe(false);
    expect(await unreadIds(a)).toEqual([m3, m2]);
    expect(await unreadIds(b.client)).toEqual([m3, m2, m1]);

    // A reads everything: B's count stays.
    expect((await a.ok('POST', '/messages/read-all')).updated).toBe(2);
    expect(await count(a)).toBe(0);
    expect(await count(b.client)).toBe(3);
    const listA = await a.ok('GET', '/messages?pageSize=100');
    const mine = listA.items.filter((m: any) => [m1, m2, m3].includes(m.id));
    expect(mine.map((m: any) => m.read)).toEqual([true, true, true]);

    // B reads everything, then marks one unread below the watermark; a new message arrives.
    expect((await b.client.ok('POST', '/messages/read-all')).updated).toBe(3);
    await b.client.ok('PATCH', `/messages/${m2}`, { read: false });
    const [m4] = await messages('fourth');
    expect(await unreadIds(b.client)).toEqual([m4, m2]);
    expect(await unreadIds(a)).toEqual([m4]);
    // Paging through the merged sides keeps the order.
    const second = await b.client.ok('GET', '/messages?unread=true&pageSize=1&page=2');
    expect(second.items.map((m: any) => m.id)).toEqual([m2]);
    // The unread filter with a search follows the same person.
    await herald.waitFor(async () => (await a.ok('GET', '/messages?q=fourth')).total === 1);
    expect(await unreadIds(b.client, '&q=second')).toEqual([m2]);
    expect(await unreadIds(a, '&q=second')).toEqual([]);

    // Above the watermark: read, then unread again.
    await a.ok('PATCH', `/messages/${m4}`, { read: true });
    expect(await count(a)).toBe(0);
    await a.ok('PATCH', `/messages/${m4}`, { read: false });
    expect(await unreadIds(a)).toEqual([m4]);
    expect(await count(b.client)).toBe(2);
  });

  it('starts a new teammate with only what arrives after them unread', async () => {
    const [before] = await messages('before the teammate');
    const c = await person();
    expect(await readOf(c.client, before)).toBe(true);
    const [after] = await messages('after the teammate');
    expect(await unreadIds(c.client)).toEqual([after]);
  });

  async function readRows(messageId: number): Promise<number> {
    const rows = await herald.server.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*) AS n FROM hosted_message_reads WHERE message_id = :id',
      { type: QueryTypes.SELECT, replacements: { id: messageId } },
    );
    return Number(rows[0].n);
  }

  it('forgets a deleted message’s read state, and a deleted person’s', async () => {
    const b = await person();
    await a.ok('POST', '/messages/read-all');
    await b.client.ok('POST', '/messages/read-all');
    const [kept, gone] = await messages('kept', 'gone');
    await a.ok('PATCH', `/messages/${gone}`, { read: true });
    await b.client.ok('PATCH', `/messages/${gone}`, { read: true });
    expect(await readRows(gone)).toBe(2);

    await a.ok('DELETE', `/messages/${gone}`);
    expect(await readRows(gone)).toBe(0);
    expect(await count(a)).toBe(1);
    expect(await count(b.client)).toBe(1);
    expect(await unreadIds(b.client)).toEqual([kept]);

    // A deleted message below the watermark leaves the count right too.
    await b.client.ok('POST', '/messages/read-all');
    await a.ok('DELETE', `/messages/${kept}`);
    expect(await count(b.client)).toBe(0);
    const [later] = await messages('later');
    expect(await unreadIds(b.client)).toEqual([later]);

    await b.client.ok('PATCH', `/messages/${later}`, { read: true });
    await herald.server.ctx.writeLock.run(() => User.destroy({ where: { id: b.id } }));
    const left = await herald.server.ctx.sequelize.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM hosted_message_reads WHERE user_id = :id)
            + (SELECT count(*) FROM hosted_message_read_marks WHERE user_id = :id) AS n`,
      { type: QueryTypes.SELECT, replacements: { id: b.id } },
    );
    expect(Number(left[0].n)).toBe(0);
  });

  it('forgets pruned messages’ read state and keeps the counts right', async () => {
    const b = await person();
    const [old1, old2, fresh] = await messages('old one', 'old two', 'fresh one');
    await a.ok('POST', '/messages/read-all');
    await a.ok('PATCH', `/messages/${old1}`, { read: false });
    await b.client.ok('PATCH', `/messages/${old2}`, { read: true });
    const unreadBefore = await count(b.client);
    await herald.server.ctx.writeLock.run(() =>
      HostedMessage.update(
        { createdAt: new Date('2020-01-01T00:00:00Z') },
        { where: { id: [old1, old2] }, silent: true },
      ),
    );
    await a.ok('PUT', '/settings', { retention: { messagesDays: 30 } });
    // Both people's consoles hear of it once (which messages is not said): their counts are stale.
    const streams = [
      await streamEvents(herald.url, a.cookie),
      await streamEvents(herald.url, b.client.cookie),
    ];
    try {
      const startedAt = Date.now();
      const pruned = await a.ok('POST', '/maintenance/prune');
      expect(pruned.deleted.hostedMessages).toBeGreaterThanOrEqual(2);
      for (const s of streams) {
        await s.until((text) => text.includes('event: messagesPruned\n'));
        const events = [...s.text.matchAll(/event: messagesPruned\ndata: (.*)\n/g)];
        expect(events).toHaveLength(1);
        const data = JSON.parse(events[0][1]);
        expect(data.count).toBe(pruned.deleted.hostedMessages);
        // Thirty days before the prune ran.
        const before = Date.parse(data.before);
        expect(before).toBeGreaterThanOrEqual(startedAt - 30 * 86_400_000 - 1);
        expect(before).toBeLessThanOrEqual(Date.now() - 30 * 86_400_000);
      }
      // Nothing left to prune: no event.
      expect((await a.ok('POST', '/maintenance/prune')).deleted.hostedMessages).toBe(0);
      // A later event, so that a second messagesPruned would have arrived before it.
      const [sentinel] = await messages('sentinel');
      await a.ok('DELETE', `/messages/${sentinel}`);
      for (const s of streams) {
        await s.until((text) => text.includes(`event: messageDeleted\ndata: {"id":${sentinel}}`));
        expect(s.text.match(/event: messagesPruned\n/g)).toHaveLength(1);
      }
    } finally {
      for (const s of streams) s.close();
      await a.ok('PUT', '/settings', { retention: { messagesDays: 0 } });
    }
    expect((await readRows(old1)) + (await readRows(old2))).toBe(0);
    expect(await count(a)).toBe(0);
    // B had read old two and not old one: one fewer unread.
    expect(await count(b.client)).toBe(unreadBefore - 1);
    expect(await unreadIds(b.client)).toContain(fresh);
  });

  it('announces a person’s reads on their own streams only, every window of theirs', async () => {
    const b = await person();
    const [m] = await messages('live one');
    const aStream = await streamEvents(herald.url, a.cookie);
    const bWindow1 = await streamEvents(herald.url, b.client.cookie);
    const bWindow2 = await streamEvents(herald.url, b.client.cookie);
    try {
      const bCount = await count(b.client);
      await b.client.ok('PATCH', `/messages/${m}`, { read: true });
      await b.client.ok('POST', '/messages/read-all');
      for (const w of [bWindow1, bWindow2]) {
        await w.until((text) => (text.match(/event: read\n/g) ?? []).length >= 2);
        const events = [...w.text.matchAll(/event: read\ndata: (.*)\n/g)].map((x) =>
          JSON.parse(x[1]),
        );
        expect(events).toEqual([
          { id: m, read: true, unreadCount: bCount - 1 },
          { id: null, read: true, unreadCount: 0 },
        ]);
      }
      // A's own change arrives on A's stream, after nothing of B's.
      await a.ok('PATCH', `/messages/${m}`, { read: true });
      await aStream.until((text) => text.includes('event: read\n'));
      expect([...aStream.text.matchAll(/event: read\ndata: (.*)\n/g)]).toHaveLength(1);
      expect(aStream.text).toContain(`"id":${m},"read":true`);
    } finally {
      for (const s of [aStream, bWindow1, bWindow2]) s.close();
    }
  });

  it('announces a deleted message on every person’s streams, and each count follows', async () => {
    const b = await person();
    await a.ok('POST', '/messages/read-all');
    const [m] = await messages('deleted while unread');
    const aStream = await streamEvents(herald.url, a.cookie);
    const bStream = await streamEvents(herald.url, b.client.cookie);
    try {
      const before = await count(b.client);
      await a.ok('PATCH', `/messages/${m}`, { read: true });
      await a.ok('DELETE', `/messages/${m}`);
      for (const s of [aStream, bStream]) {
        await s.until((text) => text.includes('event: messageDeleted\n'));
        expect(
          [...s.text.matchAll(/event: messageDeleted\ndata: (.*)\n/g)].map((x) => x[1]),
        ).toEqual([`{"id":${m}}`]);
      }
      // Unread for B, read for A: B's count drops, A's stays.
      expect(await count(b.client)).toBe(before - 1);
      expect(await count(a)).toBe(0);
    } finally {
      for (const s of [aStream, bStream]) s.close();
    }
  });

  it.runIf(onPostgres())(
    'read-all waits for a message another process is committing with a lower id (PostgreSQL)',
    async () => {
      await a.ok('POST', '/messages/read-all');
      // Another process's insert, under way: its id is drawn, its commit still to come.
      const other = new pg.Client({ connectionString: keptDatabases.get(herald.dataDir)!.url });
      await other.connect();
      try {
        await other.query('BEGIN');
        const [{ id: slow }] = (
          await other.query(
            `INSERT INTO hosted_messages (title, content, format, created_at, updated_at)
             VALUES ('committed late', 'x', 'text', now(), now()) RETURNING id`,
          )
        ).rows as Array<{ id: number }>;
        // This process stores a message with a higher id and commits it at once.
        const [fast] = await messages('committed first');
        expect(fast).toBeGreaterThan(slow);
        const readAll = a.ok('POST', '/messages/read-all');
        let answered = false;
        void readAll.then(() => (answered = true));
        await new Promise((r) => setTimeout(r, 300));
        // Read-all waits for the insert under way instead of drawing its line past it.
        expect(answered).toBe(false);
        await other.query('COMMIT');
        await readAll;
      } finally {
        await other.end();
      }
      // Both are read, and the count agrees with the list.
      expect(await count(a)).toBe(0);
      expect(await unreadIds(a)).toEqual([]);
    },
  );

  it('answers the desktop shell for the person a session holds', async () => {
    const b = await person();
    const token = decodeURIComponent(b.client.cookie.split('=')[1]);
    expect(await herald.server.userOfSession(token)).toBe(b.id);
    expect(await herald.server.userOfSession('not-a-session')).toBeNull();
    await b.client.ok('POST', '/messages/read-all');
    expect(await herald.server.unreadCount(b.id)).toBe(0);
    await messages('for the desktop');
    expect(await herald.server.unreadCount(b.id)).toBe(1);
    expect(await herald.server.unreadCount(aId)).toBe(await count(a));
  });
});

async function streamEvents(url: string, cookie: string) {
  const ac = new AbortController();
  const res = await fetch(`${url}/api/console/events`, {
    headers: { Cookie: cookie },
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  // The stream's first bytes: the listeners are in place once they arrive.
  while (!text.includes('retry:')) {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
  }
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
